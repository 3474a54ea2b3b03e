/// Whether a sound has kept one spectrum for seconds: a hum, a tone, a fan, which is neither speech
/// nor music (docs/sound-classes.md, "A sound that does not change"). The network sees half a
/// second around each frame, over which a mains hum and its harmonics look like a held bass note and
/// it reads them as music; what tells them apart is that a hum does not change for seconds, and
/// music and speech do.
///
/// Fed each interval's window: the mean of each mel band over the interval's own frames (the bands
/// are already less their interval's mean, so the level does not count, only the spectrum's shape);
/// the interval is unchanging when, over it and the intervals before it, `intervals` in all, the
/// bands moved by at most `range` on average (each band by the distance between its highest and
/// lowest mean). On average rather than the most any band moved: a band that holds only a quiet
/// room's noise moves by chance by nearly as much as the whole rule allows.
public struct UnchangingSound: Sendable {
    /// How long a sound must keep its spectrum: long enough that a held chord or note of music has
    /// changed, short enough to leave only a check-in's first seconds to the network.
    public static let seconds = 4.0
    /// How far the bands may move on average, in log10 of energy: 0.8 dB. Chosen on training clips
    /// (docs/sound-classes.md, "A sound that does not change"); `make train-classes` reports the
    /// share of each kind's training seconds within it.
    public static let range: Float = 0.08

    /// The intervals the rule spans: `seconds` of them, and at least four.
    public let intervals: Int
    /// The last intervals' band sums over their own frames, and how many frames, oldest first.
    private var recent: [(sums: [Float], frames: Int)] = []

    public init(interval: Double) {
        intervals = max(4, Int((Self.seconds / interval).rounded(.up)))
    }

    /// Feeds an interval's window; whether the sound has not changed over the last `intervals`
    /// intervals, this one included. An interval without frames of its own starts the span again.
    ///
    /// An interval `cutShort` (the last of a recording or a check-in, ended where it was) is
    /// judged together with the interval before it, its frames joining that interval's: a few
    /// frames' band means over a room's noise move by more than the rule allows, and an interval
    /// of none would start the span again, so a hum's last moment would be left to the network,
    /// which reads it as music.
    public mutating func hasNotChanged(through window: SoundFeatures.Window, cutShort: Bool = false) -> Bool {
        let own = ownSums(of: window)
        if cutShort {
            guard let before = recent.last else { return false }
            return hasNotChanged(over: recent.dropLast() + [(zip(before.sums, own).map(+), before.frames + window.frames)])
        }
        guard window.frames > 0 else {
            recent.removeAll()
            return false
        }
        recent.append((own, window.frames))
        if recent.count > intervals { recent.removeFirst() }
        return hasNotChanged(over: recent)
    }

    private func ownSums(of window: SoundFeatures.Window) -> [Float] {
        let width = SoundFeatures.names.count
        let own = Array(window.own)
        return (0..<SoundFeatures.bandCount).map { band in
            stride(from: band, to: own.count, by: width).reduce(Float(0)) { $0 + own[$1] }
        }
    }

    /// Whether over `span`, `intervals` of them, the bands' means moved by at most `range` on average.
    private func hasNotChanged(over span: [(sums: [Float], frames: Int)]) -> Bool {
        guard span.count == intervals else { return false }
        let moved = (0..<SoundFeatures.bandCount).reduce(Float(0)) { sum, band in
            let means = span.map { $0.sums[band] / Float($0.frames) }
            return sum + means.max()! - means.min()!
        }
        return moved / Float(SoundFeatures.bandCount) <= Self.range
    }
}
