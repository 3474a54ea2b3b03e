import Foundation

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

    public init(path: String, stallTimeout: Duration = .seconds(10)) throws {
        let handle = try PatientReader(path: path, stallTimeout: stallTimeout)
        self.handle = handle
        self.path = path
        func fail(_ why: String) -> Invalid { Invalid(description: "\(path): \(why)") }

        let header = try handle.read(upToCount: 12)
        guard header.count == 12, header.prefix(4) == Data("RIFF".utf8), header.suffix(4) == Data("WAVE".utf8) else {
            throw fail("not a WAV file (no RIFF/WAVE header)")
        }
        var format: (tag: Int, channels: Int, rate: Int, blockAlign: Int, bits: Int)?
        var dataSize: Int?
        while dataSize == nil {
            let chunkHeader = try handle.read(upToCount: 8)
            guard chunkHeader.count == 8 else {
                throw fail(format == nil ? "no fmt chunk" : "no data chunk")
            }
            let id = String(decoding: chunkHeader.prefix(4), as: UTF8.self)
            let size = Int(chunkHeader.littleEndian(UInt32.self, at: 4))
            switch id {
            case "fmt ":
                let body = size >= 16 ? try handle.read(upToCount: size + size % 2) : Data()
                guard body.count >= 16 else {
                    throw fail("the fmt chunk is truncated")
                }
                var tag = Int(body.littleEndian(UInt16.self, at: 0))
                if tag == 0xFFFE {
                    guard body.count >= 26 else { throw fail("the extensible fmt chunk is truncated") }
                    tag = Int(body.littleEndian(UInt16.self, at: 24))  // first bytes of the sub-format GUID
                }
                format = (
                    tag, Int(body.littleEndian(UInt16.self, at: 2)), Int(body.littleEndian(UInt32.self, at: 4)),
                    Int(body.littleEndian(UInt16.self, at: 12)), Int(body.littleEndian(UInt16.self, at: 14)))
            case "data":
                guard format != nil else { throw fail("the data chunk comes before the fmt chunk") }
                dataSize = size
            default:
                // Read past it rather than seek, so pipes and FIFOs work too.
                var skip = size + size % 2
                while skip > 0, case let piece = try handle.read(upToCount: min(skip, 65_536)), !piece.isEmpty {
                    skip -= piece.count
                }
            }
        }
        guard let format else { throw fail("no fmt chunk") }
        switch (format.tag, format.bits) {
        case (1, 16), (1, 24), (1, 32): encoding = .integer(bits: format.bits)
        case (3, 32): encoding = .float32
        default:
            throw fail("unsupported sample format (tag \(format.tag), \(format.bits) bits): use PCM 16/24/32-bit integer or 32-bit float")
        }
        guard (1...32).contains(format.channels) else { throw fail("\(format.channels) channels is not a usable count") }
        guard (1000...768_000).contains(format.rate) else { throw fail("sample rate \(format.rate) Hz is not usable") }
        guard format.blockAlign == format.channels * format.bits / 8 else {
            throw fail("block align \(format.blockAlign) does not match \(format.channels) channels of \(format.bits) bits")
        }
        sampleRate = format.rate
        channels = format.channels
        bytesPerFrame = format.blockAlign
        // Streams written without knowing their length say 0 or 0xFFFFFFFF: read to the end of the file.
        let declared = dataSize ?? 0
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
        framesRead += got
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
        return mono
    }

    private func noteShortfall(leftoverBytes: Int, framesRead: Int) {
        var problems: [String] = []
        if let declaredFrames, framesRead < declaredFrames {
            let declaredBytes = Double(declaredFrames * bytesPerFrame)
            problems.append(
                "the file ends after \(Self.duration(Double(framesRead) / Double(sampleRate))) of the \(Self.duration(Double(declaredFrames) / Double(sampleRate))) (\(Self.size(declaredBytes))) its header declares")
        }
        if leftoverBytes > 0 {
            problems.append("it ends in the middle of a sample frame (the last \(leftoverBytes) byte(s) are ignored)")
        }
        if !problems.isEmpty {
            shortfall = "\(path): \(problems.joined(separator: ", and ")); measured what is there"
        }
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
            return value.isFinite ? value : 0
        }
    }
}

extension Data {
    fileprivate func littleEndian<Value: FixedWidthInteger>(_ type: Value.Type, at offset: Int) -> Value {
        var value: Value = 0
        for byte in 0..<MemoryLayout<Value>.size {
            value |= Value(self[self.startIndex + offset + byte]) << (8 * byte)
        }
        return value
    }
}
