import Foundation
import HearClearCore

/// A WAV file read as a stream of mono samples in [−1, 1]: PCM 16, 24 or 32-bit integer or 32-bit
/// float (also in WAVE_FORMAT_EXTENSIBLE), any number of channels mixed down, any sample rate.
/// Only one block is held in memory at a time. Pipes and FIFOs work too; a source that delivers
/// nothing for `stallTimeout` is an error rather than a wait forever. A file that ends before its
/// header said is measured as far as it goes, and `shortfall` says what was missing.
public final class WAVFile: AudioSource {
    public enum Encoding: Sendable, Equatable {
        case integer(bits: Int)
        case float32
    }

    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    public let sampleRate: Int
    public let channels: Int
    public let encoding: Encoding
    /// When the data ended before the header said it would, or in the middle of a frame: in words.
    public private(set) var shortfall: String?
    private let handle: PatientReader
    private let path: String
    private let bytesPerFrame: Int
    private var framesLeft: Int
    /// Frames the header declares; nil for streams written without knowing their length.
    private let declaredFrames: Int?

    /// How long the header says the recording is; nil for streams written without knowing their length.
    public var declaredSeconds: Double? {
        declaredFrames.map { Double($0) / Double(sampleRate) }
    }
    private var framesRead = 0
    private var repairs = SampleRepairs()

    /// The samples mended on the way (`SampleRepairs`), in words.
    public var mended: String? { repairs.description(path: path, sampleRate: sampleRate) }

    public init(path: String, stallTimeout: Duration = .seconds(10)) throws {
        let handle = try PatientReader(path: path, stallTimeout: stallTimeout)
        self.handle = handle
        self.path = path
        func fail(_ why: String) -> Invalid { Invalid(description: "\(path): \(why)") }

        let (format, declared) = try WAVFormat.read(from: handle, fail: fail)
        if let problem = format.implausibility { throw fail(problem) }
        switch (format.tag, format.bits) {
        case (WAVFormat.pcm, 16), (WAVFormat.pcm, 24), (WAVFormat.pcm, 32): encoding = .integer(bits: format.bits)
        case (WAVFormat.float, 32): encoding = .float32
        default:
            throw fail("unsupported sample format (tag \(format.tag), \(format.bits) bits): use PCM 16/24/32-bit integer or 32-bit float")
        }
        sampleRate = format.rate
        channels = format.channels
        bytesPerFrame = format.blockAlign
        // Streams written without knowing their length say 0 or 0xFFFFFFFF (as RF64 does): read to the end of the file.
        declaredFrames = (declared == 0 || declared == 0xFFFF_FFFF) ? nil : declared / bytesPerFrame
        framesLeft = declaredFrames ?? Int.max
    }

    /// Up to `maxFrames` frames mixed to mono; `nil` at the end of the data.
    public func read(maxFrames: Int) throws -> [Float]? {
        guard framesLeft > 0 else { return nil }
        let frames = min(maxFrames, framesLeft)
        let data = try handle.read(upToCount: frames * bytesPerFrame)
        let got = data.count / bytesPerFrame
        if data.count < frames * bytesPerFrame {
            // The data ended: a short read is the end of the file (or of the pipe).
            noteShortfall(leftoverBytes: data.count % bytesPerFrame, framesRead: framesRead + got)
            framesLeft = 0
            guard got > 0 else { return nil }
        } else {
            framesLeft -= got
        }
        defer { framesRead += got }
        if encoding == .integer(bits: 16) && channels == 1 {
            // The common case, and the one long recordings are made of: no per-sample dispatch.
            return data.withUnsafeBytes { raw in
                (0..<got).map { Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))) / 32_768 }
            }
        }
        var mono = [Float](repeating: 0, count: got)
        let scale = 1 / Float(channels)
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            for frame in 0..<got {
                var sum: Float = 0
                for channel in 0..<channels {
                    let offset = frame * bytesPerFrame + channel * bytesPerFrame / channels
                    sum += Self.decode(bytes, at: offset, encoding: encoding)
                }
                mono[frame] = sum * scale
            }
        }
        if encoding == .float32 { repairs.mend(&mono, from: framesRead) }
        return mono
    }

    private func noteShortfall(leftoverBytes: Int, framesRead: Int) {
        var problems: [String] = []
        if let declaredFrames, framesRead < declaredFrames {
            problems.append(
                Self.endsEarly(
                    after: Double(framesRead) / Double(sampleRate), of: Double(declaredFrames) / Double(sampleRate),
                    declaredBytes: Double(declaredFrames * bytesPerFrame)))
        }
        if leftoverBytes > 0 { problems.append(Self.cutFrame(leftoverBytes)) }
        if !problems.isEmpty {
            shortfall = "\(path): \(problems.joined(separator: ", and ")); measured what is there"
        }
    }

    /// A file shorter than its header says, in the words of both readers (this one and SoundFile's).
    static func endsEarly(after seconds: Double, of declaredSeconds: Double, declaredBytes: Double) -> String {
        "the file ends after \(duration(seconds)) of the \(duration(declaredSeconds)) (\(size(declaredBytes))) its header declares"
    }

    /// A file whose last frame is cut short, in the words of both readers.
    static func cutFrame(_ leftoverBytes: Int) -> String {
        "it ends in the middle of a sample frame (the last \(leftoverBytes.counted("byte")) \(leftoverBytes == 1 ? "is" : "are") ignored)"
    }

    static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return String(format: "%.2f s", seconds) }
        let whole = Int(seconds.rounded())
        if whole < 3600 { return "\(whole / 60) min \(String(format: "%02d", whole % 60)) s" }
        return "\(whole / 3600) h \(String(format: "%02d", whole / 60 % 60)) min"
    }

    static func size(_ bytes: Double) -> String {
        bytes >= 1e9 ? String(format: "%.1f GB", bytes / 1e9) : bytes >= 1e6 ? String(format: "%.1f MB", bytes / 1e6) : String(format: "%.0f bytes", bytes)
    }

    @inline(__always)
    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, encoding: Encoding) -> Float {
        switch encoding {
        case .integer(bits: 16):
            return Float(Int16(bitPattern: UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8)) / 32_768
        case .integer(bits: 24):
            let value = Int32(bitPattern: UInt32(bytes[offset]) << 8 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 24) >> 8
            return Float(value) / 8_388_608
        case .integer:
            let value = Int32(bitPattern: UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24)
            return Float(Double(value) / 2_147_483_648)
        case .float32:
            let value = Float(bitPattern: UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24)
            return value
        }
    }
}
