import HearClearCore

/// How many of a cell's (or a check-in hour's) kept seconds were classified, and in how many of
/// them speech and music were detected (`SoundClasses.holds`): counts, so that cells add and sum
/// again exactly. API v1 check-ins, and meters below 14 kHz, classify nothing.
public struct SoundCounts: Sendable, Equatable {
    public var classified: Int
    public var speech: Int
    public var music: Int

    public static let none = SoundCounts(classified: 0, speech: 0, music: 0)

    /// The store's columns, in the order of `values`: the same names in `checkin_hour` and `loudness`.
    public static let columns = ["classified_samples", "speech_samples", "music_samples"]

    public init(classified: Int, speech: Int, music: Int) {
        self.classified = classified
        self.speech = speech
        self.music = music
    }

    public init(values: [Int]) {
        self.init(classified: values[0], speech: values[1], music: values[2])
    }

    public var values: [Int] { [classified, speech, music] }

    mutating func add(_ classes: SoundClasses, seconds: Int) {
        classified += seconds
        if classes.holds(.speech) { speech += seconds }
        if classes.holds(.music) { music += seconds }
    }

    public func adding(_ other: SoundCounts) -> SoundCounts {
        SoundCounts(values: zip(values, other.values).map(+))
    }

    /// `other`'s counts taken away; `nil` when one would fall below 0.
    func removing(_ other: SoundCounts) -> SoundCounts? {
        let values = zip(values, other.values).map(-)
        return values.allSatisfy { $0 >= 0 } ? SoundCounts(values: values) : nil
    }

    /// The share of the classified seconds where speech (music) was detected; `nil` when none was classified.
    public var speechShare: Double? { classified > 0 ? Double(speech) / Double(classified) : nil }
    public var musicShare: Double? { classified > 0 ? Double(music) / Double(classified) : nil }
}
