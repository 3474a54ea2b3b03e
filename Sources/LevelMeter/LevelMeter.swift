import Foundation
import HearClearCore

/// Streams audio into per-interval levels: `avg`, the RMS level, and `peak`, the largest absolute
/// sample, both in dBFS with sox's convention (samples scaled to ±1, so a full-scale sine reads
/// avg −3.01 and peak 0.00), after the frequency weighting. Only the running sums of the current
/// interval are kept, so memory does not grow with the length of a session.
public struct LevelMeter: Sendable {
    public let sampleRate: Int
    public let interval: Double
    public let weighting: Weighting
    private var filter: AWeightingFilter?
    private let samplesPerInterval: Int
    private var sumOfSquares = 0.0
    private var largest = 0.0
    private var count = 0
    private var index = 0

    public init(sampleRate: Int, interval: Double = 1, weighting: Weighting = .a) {
        precondition(sampleRate > 0 && interval > 0)
        self.sampleRate = sampleRate
        self.interval = interval
        self.weighting = weighting
        self.filter = weighting == .a ? AWeightingFilter(sampleRate: Double(sampleRate)) : nil
        self.samplesPerInterval = max(1, Int((interval * Double(sampleRate)).rounded()))
    }

    /// Feeds samples in [−1, 1]; returns the intervals they completed.
    public mutating func process(_ samples: [Float]) -> [Sample] {
        samples.withUnsafeBufferPointer { process($0) }
    }

    public mutating func process(_ samples: UnsafeBufferPointer<Float>) -> [Sample] {
        var completed: [Sample] = []
        var position = 0
        while position < samples.count {
            let take = min(samplesPerInterval - count, samples.count - position)
            let chunk = UnsafeBufferPointer(rebasing: samples[position..<(position + take)])
            let measured = filter != nil ? filter!.accumulate(chunk) : Self.accumulate(chunk)
            sumOfSquares += measured.sumOfSquares
            largest = max(largest, measured.largest)
            count += take
            position += take
            if count == samplesPerInterval {
                completed.append(closeInterval())
            }
        }
        return completed
    }

    /// Sum of squares and largest magnitude of unweighted samples.
    private static func accumulate(_ samples: UnsafeBufferPointer<Float>) -> (sumOfSquares: Double, largest: Double) {
        var sum = 0.0, largest: Float = 0
        for sample in samples {
            sum += Double(sample * sample)
            largest = max(largest, abs(sample))
        }
        return (sum, Double(largest))
    }

    /// The last, partial interval, if it holds any samples.
    public mutating func finish() -> Sample? {
        count > 0 ? closeInterval() : nil
    }

    private mutating func closeInterval() -> Sample {
        let sample = Sample(
            t: Double(index) * interval,
            avg: Level.level(energy: sumOfSquares / Double(count)),
            peak: Level.level(energy: largest * largest))
        index += 1
        sumOfSquares = 0
        largest = 0
        count = 0
        return sample
    }
}

/// Finds loud events in a stream of intervals: an interval whose peak, after calibration, reaches
/// the threshold is loud; loud intervals starting less than `mergeWindow` seconds after the first
/// one of a group belong to that group. Seconds [0, 5, 19, 21, 41] make events at 0, 21 and 41.
public struct LoudEventDetector: Sendable {
    public static let defaultThresholdDB = 85.0
    public static let defaultMergeWindow = 20.0

    public let thresholdDB: Double
    public let calibrationDB: Double
    public let mergeWindow: Double
    private var current: (start: Double, end: Double, peak: Double)?

    public init(thresholdDB: Double = defaultThresholdDB, calibrationDB: Double, mergeWindow: Double = defaultMergeWindow) {
        self.thresholdDB = thresholdDB
        self.calibrationDB = calibrationDB
        self.mergeWindow = mergeWindow
    }

    /// Feeds one interval of `interval` seconds; returns the event it closed, if any.
    public mutating func add(_ sample: Sample, interval: Double) -> LoudEvent? {
        guard sample.peak + calibrationDB >= thresholdDB else { return nil }
        if let group = current, sample.t - group.start < mergeWindow {
            current = (group.start, sample.t + interval, max(group.peak, sample.peak))
            return nil
        }
        let closed = finish()
        current = (sample.t, sample.t + interval, sample.peak)
        return closed
    }

    /// Whether loud intervals are gathering into an event right now.
    public var isOpen: Bool { current != nil }

    /// The event still open, if any.
    public mutating func finish() -> LoudEvent? {
        defer { current = nil }
        return current.map { LoudEvent(t: $0.start, peak: $0.peak, durationS: $0.end - $0.start) }
    }

    /// All events of a finished series of intervals.
    public static func events(in samples: [Sample], interval: Double, calibrationDB: Double, thresholdDB: Double = defaultThresholdDB) -> [LoudEvent] {
        var detector = LoudEventDetector(thresholdDB: thresholdDB, calibrationDB: calibrationDB)
        var events = samples.compactMap { detector.add($0, interval: interval) }
        if let last = detector.finish() { events.append(last) }
        return events
    }
}
