import Foundation

extension CheckInV2: ScannedJSON {
    /// The level columns the quick reading takes: all but `t`, whose fractions it leaves to `JSONDecoder`.
    private static let scannedLevels: Set<String> = ["avg", "peak", "fast_max", "c_avg", "oct_500", "oct_1000", "oct_2000", "oct_4000"]

    /// The body as `JSONDecoder` would decode it, read the quick way: the columns — nearly all of a
    /// body — straight from the bytes into arrays, and only the rest (header and events, a few
    /// hundred bytes) through `JSONDecoder`. Foundation's decoder first builds a map of every number
    /// and then hands each one through a container, which was most of an upload's decoding
    /// (docs/profiling.md, "Ingest"); no library here reads JSON arrays into buffers.
    ///
    /// Nil for anything but the common form — columns of plain integers, keys without escapes, no
    /// `t`, no `null` — and for anything `JSONDecoder` would refuse: the caller then decodes the body
    /// with `JSONDecoder`, which says what is wrong. So the quick reading never accepts a body the
    /// decoder refuses, nor reads one differently (`CheckInV2ScanningTests`).
    public static func scanned(_ body: Data) -> CheckInV2? {
        body.withUnsafeBytes { bytes in
            var scanner = JSONColumnScanner(bytes)
            guard let members = scanner.topLevelMembers(columns: ["levels": scannedLevels, "classes": ["speech", "music"]]),
                let levels = members.columns["levels"], let avg = levels["avg"], let peak = levels["peak"]
            else { return nil }
            var classes: Classes?
            if let columns = members.columns["classes"] {
                guard let speech = columns["speech"], let music = columns["music"] else { return nil }
                classes = Classes(speech: speech, music: music)
            }
            guard let envelope = try? JSONDecoder().decode(Envelope.self, from: members.rest) else { return nil }
            return CheckInV2(
                envelope,
                levels: Levels(
                    avg: avg, peak: peak, fastMax: levels["fast_max"], cAvg: levels["c_avg"], oct500: levels["oct_500"], oct1000: levels["oct_1000"],
                    oct2000: levels["oct_2000"], oct4000: levels["oct_4000"]),
                classes: classes)
        }
    }
}

/// A body with a quicker reading than `JSONDecoder`'s for its common form; see `CheckInV2.scanned`.
public protocol ScannedJSON {
    static func scanned(_ body: Data) -> Self?
}
