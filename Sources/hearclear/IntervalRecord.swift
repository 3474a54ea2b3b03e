import Foundation
import HearClearCore

/// One interval as `meter` and `analyze` print it: `t`, `avg` and `peak`, then the details
/// (`fast_max`, `c_avg`, the four octave bands and `sil`), `null` (or an empty CSV field) where the
/// sample rate is too low for them.
struct IntervalRecord: Encodable {
    let sample: Sample

    init(_ sample: Sample) {
        self.sample = sample
    }

    static let detailNames = ["fast_max", "c_avg"] + LevelDetails.octaveNames + ["sil"]
    static let csvHeader = (["t", "avg", "peak"] + detailNames).joined(separator: ",")
    static let tableHeader = "     t     avg    peak    fast       C     500    1000    2000    4000     SIL"

    /// The details in the order of `detailNames`.
    var detailLevels: [Double]? {
        sample.details.map { [$0.fastMax, $0.cAvg] + $0.octaves + [$0.sil] }
    }

    var csvLine: String {
        let details = detailLevels.map { $0.map { String(format: "%.2f", $0) } } ?? Array(repeating: "", count: Self.detailNames.count)
        return ([String(format: "%g,%.2f,%.2f", sample.t, sample.avg, sample.peak)] + details).joined(separator: ",")
    }

    var tableLine: String {
        String(format: "%6g  %6.2f  %6.2f", sample.t, sample.avg, sample.peak)
            + (detailLevels.map { $0.map { String(format: "  %6.2f", $0) }.joined() } ?? "")
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(sample.t, forKey: Key(stringValue: "t"))
        try container.encode(sample.avg, forKey: Key(stringValue: "avg"))
        try container.encode(sample.peak, forKey: Key(stringValue: "peak"))
        let levels = detailLevels
        for (index, name) in Self.detailNames.enumerated() {
            try container.encode(levels?[index], forKey: Key(stringValue: name))
        }
    }
}
