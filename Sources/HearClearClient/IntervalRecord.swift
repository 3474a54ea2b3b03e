import Foundation
import HearClearCore

/// One interval as the client writes it (the `--json` and `--csv` of `meter` and `analyze`, and the
/// outbox's journal): `t`, `avg` and `peak`, then the details (`fast_max`, `c_avg`, the four octave
/// bands and `sil`), then `speech` and `music` (probabilities, 0 to 1); `null` (or an empty CSV
/// field) where the sample rate was too low for them.
public struct IntervalRecord: Codable, Sendable {
    public let sample: Sample

    public init(_ sample: Sample) {
        self.sample = sample
    }

    public static let detailNames = ["fast_max", "c_avg"] + LevelDetails.octaveNames + ["sil"]
    public static let classNames = SoundClasses.Kind.allCases.map(\.rawValue)
    public static let csvHeader = (["t", "avg", "peak"] + detailNames + classNames).joined(separator: ",")
    public static let tableHeader = "     t     avg    peak    fast       C     500    1000    2000    4000     SIL  speech  music"

    /// The details in the order of `detailNames`.
    var detailLevels: [Double]? {
        sample.details.map { [$0.fastMax, $0.cAvg] + $0.octaves + [$0.sil] }
    }

    /// The classes' probabilities in the order of `classNames`, to the hundredth.
    var classValues: [Double]? {
        sample.classes.map { classes in SoundClasses.Kind.allCases.map { (classes.probability(of: $0) * 100).rounded() / 100 } }
    }

    public var csvLine: String {
        let details = detailLevels.map { $0.map { String(format: "%.2f", $0) } } ?? Array(repeating: "", count: Self.detailNames.count)
        let classes = classValues.map { $0.map { String(format: "%.2f", $0) } } ?? Array(repeating: "", count: Self.classNames.count)
        return ([String(format: "%g,%.2f,%.2f", sample.t, sample.avg, sample.peak)] + details + classes).joined(separator: ",")
    }

    public var tableLine: String {
        String(format: "%6g  %6.2f  %6.2f", sample.t, sample.avg, sample.peak)
            + (detailLevels.map { $0.map { String(format: "  %6.2f", $0) }.joined() } ?? "")
            + (classValues.map { $0.map { String(format: "  %5.2f", $0) }.joined() } ?? "")
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(sample.t, forKey: Key(stringValue: "t"))
        try container.encode(sample.avg, forKey: Key(stringValue: "avg"))
        try container.encode(sample.peak, forKey: Key(stringValue: "peak"))
        let levels = detailLevels
        for (index, name) in Self.detailNames.enumerated() {
            try container.encode(levels?[index], forKey: Key(stringValue: name))
        }
        let classes = classValues
        for (index, name) in Self.classNames.enumerated() {
            try container.encode(classes?[index], forKey: Key(stringValue: name))
        }
    }

    /// Reads what `encode` writes, and the journal lines of older clients (`t`, `avg`, `peak` only).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let levels = try (["fast_max", "c_avg"] + LevelDetails.octaveNames).map { try container.decodeIfPresent(Double.self, forKey: Key(stringValue: $0)) }
        let details = levels.allSatisfy { $0 != nil } ? levels.compactMap { $0 } : nil
        let speech = try container.decodeIfPresent(Double.self, forKey: Key(stringValue: "speech"))
        let music = try container.decodeIfPresent(Double.self, forKey: Key(stringValue: "music"))
        sample = Sample(
            t: try container.decode(Double.self, forKey: Key(stringValue: "t")), avg: try container.decode(Double.self, forKey: Key(stringValue: "avg")),
            peak: try container.decode(Double.self, forKey: Key(stringValue: "peak")),
            details: details.map { LevelDetails(fastMax: $0[0], cAvg: $0[1], octaves: Array($0[2...])) },
            classes: speech.flatMap { speech in music.map { SoundClasses(speech: speech, music: $0) } })
    }
}
