import AudioInput
import Dispatch
import Foundation
import HearClearClient
import HearClearCore
import LevelMeter

/// Runs the meter over a source until the duration, the end of the source, or SIGINT/SIGTERM,
/// handing each finished interval to `onInterval` with its length in seconds (the interval's, or
/// less for a last, partial one). Capture runs on its own thread.
struct Measurement {
    let source: any AudioSource
    let interval: Double
    let weighting: Weighting
    let duration: Double?

    @discardableResult
    func run(onInterval: (Sample, _ seconds: Double) throws -> Void) async throws -> (stoppedBySignal: Bool, overruns: Int) {
        var meter = LevelMeter(sampleRate: source.sampleRate, interval: interval, weighting: weighting, classifier: .shipped)
        let frameLimit = duration.map { Int(($0 * Double(source.sampleRate)).rounded()) }
        let capture = CaptureThread(source: source, blockFrames: max(256, source.sampleRate / 10), frameLimit: frameLimit)
        let signals = SignalWatch { capture.stop() }
        defer { signals.cancel() }
        for try await block in capture.buffers {
            for sample in meter.process(block) { try onInterval(sample, interval) }
            capture.consumed()
        }
        if let last = meter.finish() { try onInterval(last.sample, last.seconds) }
        return (signals.fired, (source as? ALSACapture)?.overruns ?? 0)
    }
}

/// Calls `action` once on the first SIGINT or SIGTERM instead of letting them kill the process.
final class SignalWatch: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let lock = NSLock()
    private var didFire = false

    init(action: @escaping @Sendable () -> Void) {
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            sources.append(source)
        }
        self.sources = sources
        for source in sources {
            source.setEventHandler { [weak self] in
                self?.lock.withLock { self?.didFire = true }
                action()
            }
            source.resume()
        }
    }

    var fired: Bool { lock.withLock { didFire } }

    func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

/// Shows the meter while measuring, on standard error: a live line on a terminal, else a plain
/// line every 10 s.
struct Progress {
    let interactive = isatty(STDERR_FILENO) == 1
    private var meter: LiveMeter
    private var lastPlain = -Double.infinity

    init(total: Double?, calibrationDB: Double?, interval: Double) {
        meter = LiveMeter(terminal: Terminal.standardOutput, total: total, calibrationDB: calibrationDB, interval: interval)
    }

    mutating func show(_ sample: Sample, seconds: Double) {
        let line = meter.line(after: sample, seconds: seconds)
        let elapsed = sample.t + seconds
        if interactive {
            note("\r\u{1B}[2K" + line, terminator: "")
        } else if elapsed - lastPlain >= 10 {
            note(line)
            lastPlain = elapsed
        }
    }

    func end() {
        if interactive { note("") }
    }
}
