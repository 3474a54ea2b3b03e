import Foundation
import HearClearCore

/// Streams audio into per-interval levels, all in one pass: `avg`, the RMS level, and `peak`, the
/// largest absolute sample, both in dBFS with sox's convention (samples scaled to ±1, so a full-scale
/// sine reads avg −3.01 and peak 0.00), after the frequency weighting; and the details (docs/levels.md):
/// the Fast maximum of the weighted signal, the C-weighted Leq and the octave bands 500 Hz … 4 kHz,
/// when the sample rate holds the 4 kHz band (`OctaveBand.minimumSampleRate`). Only the running sums
/// of the current interval are kept, so memory does not grow with the length of a session.
public struct LevelMeter: Sendable {
    /// How often the Fast detector is updated: the mean square of each millisecond enters the
    /// exponential at once, which moves a level by at most 1 − e^(−1/125) of its way (0.03 dB)
    /// against updating at every sample, and costs nothing per sample.
    static let fastStep = 0.001

    public let sampleRate: Int
    public let interval: Double
    public let weighting: Weighting
    /// Whether intervals carry `details`.
    public let measuresDetails: Bool
    /// The filters `filters` run.
    let design: MeterDesign
    private var filters: MeterFilters
    let samplesPerInterval: Int
    let samplesPerStep: Int
    private var sums = MeterFilters.Sums()
    private var count = 0
    private var index = 0
    /// The Fast detector's mean square, continuous across intervals.
    private var fast = 0.0
    private var fastMax = 0.0
    /// Speech and music, fed the same blocks: its intervals end where the levels' do.
    private(set) var features: SoundFeatures?
    public let classifier: SoundClassifier?
    private(set) var unchangingSound: UnchangingSound
    private var classified: [SoundClasses?] = []

    /// With a `classifier`, intervals carry `classes` when the sample rate allows
    /// (`SoundFeatures.minimumSampleRate`).
    public init(sampleRate: Int, interval: Double = 1, weighting: Weighting = .a, classifier: SoundClassifier? = nil) {
        precondition(sampleRate > 0 && interval > 0)
        self.sampleRate = sampleRate
        self.interval = interval
        self.weighting = weighting
        design = MeterDesign(sampleRate: sampleRate)
        measuresDetails = design.bands != nil
        filters = MeterFilters(design: design, weighting: weighting)
        samplesPerInterval = max(1, Int((interval * Double(sampleRate)).rounded()))
        samplesPerStep = max(1, Int((Self.fastStep * Double(sampleRate)).rounded()))
        self.classifier = classifier
        features = classifier == nil ? nil : SoundFeatures(sampleRate: sampleRate, interval: interval)
        unchangingSound = UnchangingSound(interval: interval)
    }

    /// Whether intervals carry `classes`.
    public var classifies: Bool { features != nil }

    /// Feeds samples in [−1, 1]; returns the intervals they completed.
    public mutating func process(_ samples: [Float]) -> [Sample] {
        samples.withUnsafeBufferPointer { process($0) }
    }

    public mutating func process(_ samples: UnsafeBufferPointer<Float>) -> [Sample] {
        if let rows = features?.process(samples), let classifier {
            for window in rows { classified.append(judge(window, with: classifier)) }
        }
        var completed: [Sample] = []
        var position = 0
        while position < samples.count {
            // A step ends at a millisecond or at the interval's end, whichever comes first.
            let intoStep = count % samplesPerStep
            let take = min(samplesPerStep - intoStep, samplesPerInterval - count, samples.count - position)
            let step = filters.accumulate(UnsafeBufferPointer(rebasing: samples[position..<(position + take)]))
            sums += step
            updateFast(meanSquare: step.weighted / Double(take), samples: take)
            count += take
            position += take
            if count == samplesPerInterval {
                completed.append(closeInterval())
            }
        }
        return completed
    }

    /// What `classifier` finds in `window`; neither in a sound that has not changed for seconds
    /// (`UnchangingSound`: a hum, which the network reads as music).
    private mutating func judge(_ window: SoundFeatures.Window, with classifier: SoundClassifier, cutShort: Bool = false) -> SoundClasses? {
        let unchanging = unchangingSound.hasNotChanged(through: window, cutShort: cutShort)
        guard let classes = classifier.classes(of: window) else { return nil }
        return unchanging ? .neither : classes
    }

    /// The exponential average over `samples` samples of constant mean square: e ← e·d + m·(1 − d).
    private mutating func updateFast(meanSquare: Double, samples: Int) {
        let decay = exp(-Double(samples) / (LevelDetails.fastTimeConstant * Double(sampleRate)))
        fast = fast * decay + meanSquare * (1 - decay)
        fastMax = max(fastMax, fast)
    }

    /// The last, partial interval, if it holds any samples, and how long it lasted: its levels are
    /// means over that time, so a run's Leq weighs it by that time, not as a whole interval.
    public mutating func finish() -> (sample: Sample, seconds: Double)? {
        if let last = features?.finish(), let classifier { classified.append(judge(last, with: classifier, cutShort: true)) }
        guard count > 0 else { return nil }
        let seconds = Double(count) / Double(sampleRate)
        return (closeInterval(), seconds)
    }

    private mutating func closeInterval() -> Sample {
        let n = Double(count)
        let details = measuresDetails
            ? LevelDetails(
                fastMax: Level.level(energy: fastMax), cAvg: Level.level(energy: sums.c / n),
                octaves: (0..<4).map { Level.level(energy: sums.bands[$0] / n) })
            : nil
        let avg = Level.level(energy: sums.weighted / n)
        let sample = Sample(
            t: Double(index) * interval, avg: avg, peak: Level.level(energy: sums.largest * sums.largest),
            details: details, classes: classified.isEmpty ? nil : classified.removeFirst()?.heard(inIntervalOf: avg))
        index += 1
        sums = MeterFilters.Sums()
        count = 0
        // The next interval's maximum starts from where the detector is now.
        fastMax = fast
        return sample
    }
}

/// Finds loud events in a stream of intervals: an interval whose peak, after calibration, reaches
/// the threshold is loud; loud intervals starting less than `mergeWindow` seconds after the first
/// one of a group belong to that group. Seconds [0, 5, 19, 21, 41] make events at 0, 21 and 41.
/// Each event says what its intervals (loud or not) mostly held, when they were classified.
public struct LoudEventDetector: Sendable {
    public static let defaultThresholdDB = 85.0
    public static let defaultMergeWindow = 20.0

    public let thresholdDB: Double
    public let calibrationDB: Double
    public let mergeWindow: Double
    private var current: (start: Double, end: Double, peak: Double)?
    /// The intervals since the current event started, with their classes.
    private var classes: [(t: Double, classes: SoundClasses?)] = []

    public init(thresholdDB: Double = defaultThresholdDB, calibrationDB: Double, mergeWindow: Double = defaultMergeWindow) {
        self.thresholdDB = thresholdDB
        self.calibrationDB = calibrationDB
        self.mergeWindow = mergeWindow
    }

    /// Feeds one interval of `interval` seconds; returns the event it closed, if any.
    public mutating func add(_ sample: Sample, interval: Double) -> LoudEvent? {
        guard sample.peak + calibrationDB >= thresholdDB else {
            // Only an interval a later loud one could still merge into the event can be the event's:
            // a quiet hour after it keeps nothing.
            if let group = current, sample.t - group.start < mergeWindow { classes.append((sample.t, sample.classes)) }
            return nil
        }
        if let group = current, sample.t - group.start < mergeWindow {
            current = (group.start, sample.t + interval, max(group.peak, sample.peak))
            classes.append((sample.t, sample.classes))
            return nil
        }
        let closed = finish()
        current = (sample.t, sample.t + interval, sample.peak)
        classes = [(sample.t, sample.classes)]
        return closed
    }

    /// Whether loud intervals are gathering into an event right now.
    public var isOpen: Bool { current != nil }

    /// The event still open, if any.
    public mutating func finish() -> LoudEvent? {
        defer {
            current = nil
            classes = []
        }
        return current.map { event in
            // Quiet intervals after its last loud one are not the event's.
            let held = classes.filter { $0.t < event.end }.map(\.classes)
            return LoudEvent(t: event.start, peak: event.peak, durationS: event.end - event.start, sound: SoundClasses.dominant(held))
        }
    }

    /// All events of a finished series of intervals. The last interval ends at `recordingEnd` when
    /// the recording stopped part-way through it; a check-in's series does not say where it ended,
    /// and counts its last interval whole.
    public static func events(
        in samples: [Sample], interval: Double, calibrationDB: Double, thresholdDB: Double = defaultThresholdDB, recordingEnd: Double = .infinity
    ) -> [LoudEvent] {
        var detector = LoudEventDetector(thresholdDB: thresholdDB, calibrationDB: calibrationDB)
        var events = samples.compactMap { detector.add($0, interval: interval) }
        if var last = detector.finish() {
            last.durationS = min(last.durationS, recordingEnd - last.t)
            events.append(last)
        }
        return events
    }
}
