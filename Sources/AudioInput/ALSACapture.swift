import CALSA
import Foundation

/// The microphone through ALSA: 16-bit little-endian capture at 48 kHz (else 44.1 kHz), mono
/// (else stereo, mixed down), from a PCM named like `arecord -D` names it. Overruns are recovered
/// and counted, not fatal. Reading blocks: run it on a thread of its own (`CaptureThread`).
public final class ALSACapture: AudioSource {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let device: String
    public private(set) var sampleRate: Int
    public private(set) var channels: Int
    /// Overruns recovered so far: audio the system dropped because it was not read in time.
    public private(set) var overruns = 0
    private var pcm: OpaquePointer?

    /// Opens the capture device. `rate` forces a sample rate; otherwise 48 kHz, then 44.1 kHz.
    public init(device: String = "default", rate: Int? = nil) throws {
        self.device = device
        Self.silenceALSAMessages()
        var handle: OpaquePointer?
        let opened = snd_pcm_open(&handle, device, SND_PCM_STREAM_CAPTURE, 0)
        guard opened >= 0, let handle else {
            throw Failure(
                description: "cannot open ALSA capture device \"\(device)\": \(String(cString: snd_strerror(opened))). "
                    + "List capture devices with `hearclear devices` and pick one with -D/--device.")
        }
        for candidate in rate.map({ [$0] }) ?? [48_000, 44_100] {
            for channelCount in [1, 2] {
                if snd_pcm_set_params(handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, UInt32(channelCount), UInt32(candidate), 1, 500_000) == 0 {
                    pcm = handle
                    sampleRate = candidate
                    channels = channelCount
                    return
                }
            }
        }
        snd_pcm_close(handle)
        throw Failure(description: "ALSA capture device \"\(device)\" accepts neither 16-bit mono nor stereo at \(rate.map { "\($0) Hz" } ?? "48 or 44.1 kHz")")
    }

    deinit {
        if let pcm { snd_pcm_close(pcm) }
    }

    public func read(maxFrames: Int) throws -> [Float]? {
        guard let pcm else { return nil }
        var buffer = [Int16](repeating: 0, count: maxFrames * channels)
        while true {
            let got = buffer.withUnsafeMutableBytes { snd_pcm_readi(pcm, $0.baseAddress, snd_pcm_uframes_t(maxFrames)) }
            if got >= 0 {
                return Self.mixDown(buffer, frames: Int(got), channels: channels)
            }
            // Overrun (EPIPE) or suspend (ESTRPIPE): recover and go on; anything else is fatal.
            if got == -Int(EPIPE) { overruns += 1 }
            let recovered = snd_pcm_recover(pcm, Int32(got), 1)
            if recovered < 0 {
                throw Failure(description: "reading from \"\(device)\" failed: \(String(cString: snd_strerror(Int32(got))))")
            }
        }
    }

    static func mixDown(_ interleaved: [Int16], frames: Int, channels: Int) -> [Float] {
        if channels == 1 { return interleaved.prefix(frames).map { Float($0) / 32_768 } }
        return (0..<frames).map { frame in
            var sum: Float = 0
            for channel in 0..<channels { sum += Float(interleaved[frame * channels + channel]) }
            return sum / (32_768 * Float(channels))
        }
    }

    /// The PCM devices ALSA knows that can capture: name and description.
    public static func captureDevices() -> [(name: String, description: String)] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) >= 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var devices: [(String, String)] = []
        var cursor = hints
        while let hint = cursor.pointee {
            defer { cursor += 1 }
            func value(_ key: String) -> String? {
                guard let text = snd_device_name_get_hint(hint, key) else { return nil }
                defer { free(text) }
                return String(cString: text)
            }
            guard let name = value("NAME") else { continue }
            let direction = value("IOID")
            guard direction == nil || direction == "Input" else { continue }
            devices.append((name, (value("DESC") ?? "").replacingOccurrences(of: "\n", with: " — ")))
        }
        return devices
    }

    /// ALSA prints its own diagnostics to stderr; our error messages say what matters in one line.
    private static func silenceALSAMessages() {
        _ = snd_lib_error_set_local { _, _, _, _, _, _ in }
    }
}

/// Runs a blocking source on a thread of its own and hands its buffers over as they come. At most
/// `queuedBlocks` wait for the consumer: a file is read no faster than it is measured, so memory
/// stays flat however long the recording; a microphone gets several seconds of slack before its
/// driver overruns (recovered and counted). Stops at `frameLimit`, at the end of the source, or
/// when `stop()` is called: then the buffers already read are still delivered and the stream ends
/// at once, even if the thread is blocked in a read that may never return.
public final class CaptureThread: @unchecked Sendable {
    public let buffers: AsyncThrowingStream<[Float], any Error>
    private let continuation: AsyncThrowingStream<[Float], any Error>.Continuation
    private let room: DispatchSemaphore
    private let lock = NSLock()
    private var stopped = false

    public init(source: AudioSource, blockFrames: Int, frameLimit: Int?, queuedBlocks: Int = 64) {
        (buffers, continuation) = AsyncThrowingStream.makeStream(of: [Float].self, bufferingPolicy: .unbounded)
        room = DispatchSemaphore(value: queuedBlocks)
        let continuation = self.continuation
        // The source is handed over: from here on only the capture thread touches it.
        nonisolated(unsafe) let source = source
        let thread = Thread { [self] in
            var remaining = frameLimit ?? Int.max
            do {
                while remaining > 0, !self.isStopped, let block = try source.read(maxFrames: min(blockFrames, remaining)) {
                    remaining -= block.count
                    self.room.wait()
                    continuation.yield(block)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        thread.name = "hearclear capture"
        thread.start()
    }

    /// The consumer is done with one block: the capture thread may queue another.
    public func consumed() {
        room.signal()
    }

    public func stop() {
        lock.withLock { stopped = true }
        continuation.finish()
        room.signal()
    }

    private var isStopped: Bool {
        lock.withLock { stopped }
    }
}
