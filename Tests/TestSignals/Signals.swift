import Foundation

/// Test signals, computed rather than recorded.
public enum Signal {
    public static func sine(frequency: Double, dBFS: Double, seconds: Double, sampleRate: Int) -> [Float] {
        let amplitude = pow(10, dBFS / 20)
        return (0..<Int(seconds * Double(sampleRate))).map { index in
            Float(amplitude * sin(2 * .pi * frequency * Double(index) / Double(sampleRate)))
        }
    }
}

/// Writes WAV files in the formats the reader supports.
public enum WAVWriter {
    public enum Format: Sendable {
        case int16, int24, int32, float32
        case extensibleInt16
    }

    public static func data(_ samples: [Float], sampleRate: Int, channels: Int = 1, format: Format) -> Data {
        let bits = switch format {
        case .int16, .extensibleInt16: 16
        case .int24: 24
        case .int32, .float32: 32
        }
        let tag: UInt16 = format == .float32 ? 3 : 1
        var body = Data()
        for sample in samples {
            for _ in 0..<channels {
                switch format {
                case .int16, .extensibleInt16: body.append(littleEndian: UInt16(bitPattern: int16(sample)))
                case .int24:
                    let value = Int32(max(-8_388_608, min(8_388_607, (Double(sample) * 8_388_608).rounded())))
                    body.append(contentsOf: [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value >> 16)])
                case .int32: body.append(littleEndian: UInt32(bitPattern: Int32(max(-2_147_483_648, min(2_147_483_647, (Double(sample) * 2_147_483_648).rounded())))))
                case .float32: body.append(littleEndian: sample.bitPattern)
                }
            }
        }
        let blockAlign = UInt16(channels * bits / 8)
        var fmt = Data()
        fmt.append(littleEndian: format == .extensibleInt16 ? UInt16(0xFFFE) : tag)
        fmt.append(littleEndian: UInt16(channels))
        fmt.append(littleEndian: UInt32(sampleRate))
        fmt.append(littleEndian: UInt32(sampleRate) * UInt32(blockAlign))
        fmt.append(littleEndian: blockAlign)
        fmt.append(littleEndian: UInt16(bits))
        if format == .extensibleInt16 {
            fmt.append(littleEndian: UInt16(22))
            fmt.append(littleEndian: UInt16(bits))
            fmt.append(littleEndian: UInt32(channels == 1 ? 4 : 3))
            fmt.append(littleEndian: UInt16(1))  // KSDATAFORMAT_SUBTYPE_PCM starts 01 00
            fmt.append(contentsOf: [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71])
        }
        var file = Data("RIFF".utf8)
        file.append(littleEndian: UInt32(4 + 8 + fmt.count + 8 + 4 + 8 + body.count))
        file.append(Data("WAVE".utf8))
        file.append(Data("fmt ".utf8))
        file.append(littleEndian: UInt32(fmt.count))
        file.append(fmt)
        // A chunk the reader must skip.
        file.append(Data("LIST".utf8))
        file.append(littleEndian: UInt32(4))
        file.append(Data("INFO".utf8))
        file.append(Data("data".utf8))
        file.append(littleEndian: UInt32(body.count))
        file.append(body)
        return file
    }
}

extension WAVWriter {
    /// Raw 16-bit little-endian mono PCM, as ALSA's file plugin replays it.
    public static func rawPCM16(_ samples: [Float]) -> Data {
        var data = Data()
        for sample in samples { data.append(littleEndian: UInt16(bitPattern: int16(sample))) }
        return data
    }

    static func int16(_ sample: Float) -> Int16 {
        Int16(max(-32768, min(32767, (Double(sample) * 32768).rounded())))
    }
}

extension Data {
    mutating func append<Value: FixedWidthInteger>(littleEndian value: Value) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

public func temporaryFile(_ name: String, _ data: Data) throws -> String {
    let url = try temporaryFolder("wav").appendingPathComponent(name)
    try data.write(to: url)
    return url.path
}

/// A new folder for one test's files, inside one folder per test process that is removed when the
/// process exits, so runs leave nothing behind in the system's temporary folder.
public func temporaryFolder(_ kind: String) throws -> URL {
    let folder = TemporaryRoot.folder.appendingPathComponent("\(kind)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

enum TemporaryRoot {
    static let folder: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearclear-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TemporaryRoot.folder) }
        return folder
    }()
}
