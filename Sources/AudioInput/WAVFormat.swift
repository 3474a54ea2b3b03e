import Foundation
import HearClearCore

/// What a WAV file's header declares about its samples (the fmt chunk), and whether that is
/// plausible. Checked before any reading: libsndfile meets a 0 Hz rate with "Internal error :
/// SF_INFO struct incomplete." and measures a file of 1-bit samples, or of block align 0, without a
/// word; `WAVFile` and `SoundFile` both refuse such a header naming what is wrong with it.
struct WAVFormat: Equatable {
    var tag: Int
    var channels: Int
    var rate: Int
    var blockAlign: Int
    var bits: Int

    static let pcm = 1, float = 3, aLaw = 6, muLaw = 7
    static let usableRates = 1000...768_000

    /// The sample sizes each plain encoding has; compressed encodings (ADPCM, GSM, MP3 in WAV)
    /// declare their own and are left to libsndfile.
    static let bitsByTag: [Int: [Int]] = [pcm: [8, 16, 24, 32], float: [32, 64], aLaw: [8], muLaw: [8]]

    /// What makes the header implausible, in words; nil when nothing does.
    var implausibility: String? {
        guard (1...32).contains(channels) else { return "\(channels) channels is not a usable count (1 to 32)" }
        guard Self.usableRates.contains(rate) else {
            return "the header declares a sample rate of \(rate) Hz, which no recording has (\(Self.usableRates.lowerBound) to \(Self.usableRates.upperBound) Hz)"
        }
        guard blockAlign > 0 else { return "the header declares a block align of 0 bytes per sample frame" }
        guard let sizes = Self.bitsByTag[tag] else { return nil }
        guard sizes.contains(bits) else {
            return "the header declares \(bits)-bit samples, which its encoding does not have (\(sizes.map { "\($0)" }.joined(separator: ", ")) bits)"
        }
        guard blockAlign == channels * bits / 8 else {
            return "the header declares a block align of \(blockAlign) bytes, but \(channels.counted("channel")) of \(bits) bits take \(channels * bits / 8)"
        }
        return nil
    }

    /// Reads a RIFF or RF64 WAVE header up to its data chunk, from where `reader` is (the file's
    /// start): the format and the data chunk's declared size. Chunks are read past, not sought
    /// over, so pipes and FIFOs work too.
    static func read(from reader: PatientReader, fail: (String) -> WAVFile.Invalid) throws -> (format: WAVFormat, dataSize: Int) {
        guard isWAVHeader(try reader.read(upToCount: 12)) else { throw fail("not a WAV file (no RIFF/WAVE header)") }
        return try readChunks(from: reader, fail: fail)
    }

    /// The format a file at `path` declares when it is a WAV file; nil for any other kind.
    static func declared(byFileAt path: String) throws -> WAVFormat? {
        let reader = try PatientReader(path: path, stallTimeout: .seconds(10))
        guard isWAVHeader(try reader.read(upToCount: 12)) else { return nil }
        return try readChunks(from: reader) { WAVFile.Invalid(description: "\(path): \($0)") }.format
    }

    /// Whether a file's first 12 bytes are a RIFF or RF64 WAVE header.
    private static func isWAVHeader(_ start: Data) -> Bool {
        start.count == 12 && (start.prefix(4) == Data("RIFF".utf8) || start.prefix(4) == Data("RF64".utf8)) && start.suffix(4) == Data("WAVE".utf8)
    }

    /// The chunks after the header, up to the data chunk.
    private static func readChunks(from reader: PatientReader, fail: (String) -> WAVFile.Invalid) throws -> (format: WAVFormat, dataSize: Int) {
        var format: WAVFormat?
        while true {
            let chunkHeader = try reader.read(upToCount: 8)
            guard chunkHeader.count == 8 else { throw fail(format == nil ? "no fmt chunk" : "no data chunk") }
            let id = String(decoding: chunkHeader.prefix(4), as: UTF8.self)
            let size = Int(chunkHeader.littleEndian(UInt32.self, at: 4))
            switch id {
            case "fmt ":
                let body = size >= 16 ? try reader.read(upToCount: size + size % 2) : Data()
                guard body.count >= 16 else { throw fail("the fmt chunk is truncated") }
                var tag = Int(body.littleEndian(UInt16.self, at: 0))
                if tag == 0xFFFE {
                    guard body.count >= 26 else { throw fail("the extensible fmt chunk is truncated") }
                    tag = Int(body.littleEndian(UInt16.self, at: 24))  // first bytes of the sub-format GUID
                }
                format = WAVFormat(
                    tag: tag, channels: Int(body.littleEndian(UInt16.self, at: 2)), rate: Int(body.littleEndian(UInt32.self, at: 4)),
                    blockAlign: Int(body.littleEndian(UInt16.self, at: 12)), bits: Int(body.littleEndian(UInt16.self, at: 14)))
            case "data":
                guard let format else { throw fail("the data chunk comes before the fmt chunk") }
                return (format, size)
            default:
                var skip = size + size % 2
                while skip > 0, case let piece = try reader.read(upToCount: min(skip, 65_536)), !piece.isEmpty {
                    skip -= piece.count
                }
            }
        }
    }
}

extension Data {
    func littleEndian<Value: FixedWidthInteger>(_ type: Value.Type, at offset: Int) -> Value {
        var value: Value = 0
        for byte in 0..<MemoryLayout<Value>.size {
            value |= Value(self[self.startIndex + offset + byte]) << (8 * byte)
        }
        return value
    }
}
