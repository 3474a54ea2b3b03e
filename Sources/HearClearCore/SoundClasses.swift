/// How likely an interval holds speech and how likely music, each from 0 to 1 and each on its own:
/// a talk over background music can be likely both (docs/sound-classes.md).
public struct SoundClasses: Sendable, Equatable, Codable {
    public var speech: Double
    public var music: Double

    /// A probability from this on counts as detected: in the shares, the sessions and the meter's line.
    public static let detected = 0.5

    public init(speech: Double, music: Double) {
        self.speech = speech
        self.music = music
    }

    /// Neither speech nor music, for certain: silence, or a sound that has not changed for seconds.
    public static let neither = SoundClasses(speech: 0, music: 0)

    /// What an interval of `level` dBFS holds, judged by the network as `self`: a second that held
    /// no sound at all (`Level.isSilence`: a muted microphone, an input giving zeros) holds neither.
    /// The network never heard digital silence, as its corpus lies over a −60 dBFS floor, and read
    /// such seconds as music. The browser's meter applies the same rule with the design's `silence_db`.
    public func heard(inIntervalOf level: Double) -> SoundClasses {
        Level.isSilence(level) ? .neither : self
    }

    public enum Kind: String, Sendable, CaseIterable {
        case speech, music
    }

    /// What a stretch of intervals mostly held.
    public enum Dominant: String, WireEnum, Sendable {
        case speech, music, other
    }

    /// In whole percent, as API v2 carries them.
    public var percent: (speech: Int, music: Int) { (Int((speech * 100).rounded()), Int((music * 100).rounded())) }

    public init(percent speech: Int, _ music: Int) {
        self.init(speech: Double(speech) / 100, music: Double(music) / 100)
    }

    /// To the whole percent.
    public var rounded: SoundClasses { SoundClasses(percent: percent.speech, percent.music) }

    /// Whether `kind` counts as detected, judged on the whole percent the probability is shown and
    /// uploaded as: 0.497 reads 0.50 in `analyze` and arrives as 50 at the server, which counts it.
    public func holds(_ kind: Kind) -> Bool { rounded.probability(of: kind) >= Self.detected }

    /// What the interval holds, in a word or three: `speech`, `music`, `speech and music` or `other`.
    public var words: String {
        let found = Kind.allCases.filter(holds).map(\.rawValue)
        return found.isEmpty ? "other" : found.joined(separator: " and ")
    }

    /// What a stretch of intervals mostly held: the class with the higher mean probability when
    /// that mean reaches `detected`, else `other`; `nil` when none of them was classified.
    public static func dominant(_ intervals: [SoundClasses?]) -> Dominant? {
        let classified = intervals.compactMap { $0 }
        guard !classified.isEmpty else { return nil }
        let means = Kind.allCases.map { kind in (kind, classified.reduce(0) { $0 + $1.probability(of: kind) } / Double(classified.count)) }
        guard let best = means.max(by: { $0.1 < $1.1 }), best.1 >= detected else { return .other }
        return Dominant(rawValue: best.0.rawValue)
    }

    public func probability(of kind: Kind) -> Double {
        switch kind {
        case .speech: speech
        case .music: music
        }
    }
}
