import CSndFile
import Foundation
import HearClearCore

/// An audio file read through libsndfile as a stream of mono samples in [−1, 1]: WAV in all its
/// forms (8 to 32-bit integer, float, µ-law, A-law, WAVE_FORMAT_EXTENSIBLE, RF64), FLAC, Ogg
/// Vorbis, Opus and MP3, any number of channels mixed down. Only one block is in memory at a time.
/// libsndfile reads files it can seek in; pipes and FIFOs go to `WAVFile`'s streaming reader
/// (`AudioFile.open`).
public final class SoundFile: AudioSource {
    public let sampleRate: Int
    public let channels: Int
    /// What libsndfile found wrong with the header (it reads what is there), in words.
    public private(set) var shortfall: String?
    /// How long the file says it is.
    public let declaredSeconds: Double?
    /// When the recording was made, when the file says so (a `DATE` tag in ISO 8601 with its zone).
    public let recordedAt: Date?
    private let handle: OpaquePointer
    private let path: String
    private var interleaved: [Float] = []
    private var framesRead = 0
    private var repairs = SampleRepairs()
    /// Float, double and lossy data come as they are stored or decoded, unlimited; libsndfile
    /// scales integer PCM into [−1, 1) itself.
    private let mayNeedMending: Bool

    /// The samples mended on the way (`SampleRepairs`), in words.
    public var mended: String? { repairs.description(path: path, sampleRate: sampleRate) }

    public init(path: String) throws {
        if let problem = try WAVFormat.declared(byFileAt: path)?.implausibility {
            throw WAVFile.Invalid(description: "\(path): \(problem)")
        }
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw WAVFile.Invalid(description: "\(path): \(Self.reason(String(cString: sf_strerror(nil))))")
        }
        guard info.samplerate >= 1000, info.channels >= 1 else {
            sf_close(handle)
            throw WAVFile.Invalid(description: "\(path): \(Int(info.channels).counted("channel")) at \(info.samplerate) Hz is not usable audio")
        }
        self.handle = handle
        self.path = path
        mayNeedMending = Self.bytesPerFrame(info) == nil || [Int(SF_FORMAT_FLOAT), Int(SF_FORMAT_DOUBLE)].contains(Int(info.format) & Int(SF_FORMAT_SUBMASK))
        sampleRate = Int(info.samplerate)
        channels = Int(info.channels)
        declaredSeconds = info.frames > 0 ? Double(info.frames) / Double(info.samplerate) : nil
        recordedAt = sf_get_string(handle, Int32(SF_STR_DATE)).flatMap { ISO8601DateFormatter().date(from: String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self)) }
        shortfall = Self.headerProblem(handle, info: info).map { "\(path): \($0); measured what is there" }
    }

    deinit {
        sf_close(handle)
    }

    /// Up to `maxFrames` frames mixed to mono; `nil` at the end of the data.
    public func read(maxFrames: Int) throws -> [Float]? {
        if interleaved.count < maxFrames * channels { interleaved = [Float](repeating: 0, count: maxFrames * channels) }
        let got = Int(interleaved.withUnsafeMutableBufferPointer { sf_readf_float(handle, $0.baseAddress, sf_count_t(maxFrames)) })
        guard got > 0 else { return nil }
        var mono: [Float]
        if channels == 1 {
            mono = Array(interleaved[0..<got])
        } else {
            let scale = 1 / Float(channels)
            mono = (0..<got).map { frame in
                var sum: Float = 0
                for channel in 0..<channels { sum += interleaved[frame * channels + channel] }
                return sum * scale
            }
        }
        if mayNeedMending { repairs.mend(&mono, from: framesRead) }
        framesRead += got
        return mono
    }

    /// libsndfile's own words for a file it cannot read, shortened to what a person can act on.
    static func reason(_ message: String) -> String {
        message.hasPrefix("Format not recognised") || message.contains("unknown format")
            ? "not an audio file libsndfile can read (\(message))" : message
    }

    /// A header claiming more than the file holds: libsndfile reads what is there and notes
    /// "data : 4026531840 (should be 1026)" in its log, the only place it says so.
    static func headerProblem(_ handle: OpaquePointer, info: SF_INFO) -> String? {
        var log = [UInt8](repeating: 0, count: 4096)
        let length = Int(sf_command(handle, Int32(SFC_GET_LOG_INFO), &log, Int32(log.count)))
        let lines = String(decoding: log.prefix(max(0, min(length, log.count))), as: UTF8.self).split(separator: "\n")
        // "NAME : DECLARED (should be ACTUAL)"
        let claims = lines.compactMap { line -> (name: String, declared: Int, actual: Int)? in
            let parts = line.split(whereSeparator: { " :()".contains($0) })
            guard parts.count >= 5, parts[2] == "should", parts[3] == "be", let declared = Int(parts[1]), let actual = Int(parts[4]), declared > actual
            else { return nil }
            return (String(parts[0]), declared, actual)
        }
        guard let first = claims.first else { return nil }
        let seconds = Double(info.frames) / Double(info.samplerate)
        if let data = claims.first(where: { $0.name == "data" }), let frameBytes = bytesPerFrame(info), frameBytes > 0 {
            var problems = [
                WAVFile.endsEarly(
                    after: seconds, of: Double(data.declared / frameBytes) / Double(info.samplerate), declaredBytes: Double(data.declared))
            ]
            if data.actual % frameBytes != 0 { problems.append(WAVFile.cutFrame(data.actual % frameBytes)) }
            return problems.joined(separator: ", and ")
        }
        return "the file is \((first.declared - first.actual).counted("byte")) shorter than its header declares"
    }

    /// Bytes per frame of uncompressed formats; nil for compressed ones.
    static func bytesPerFrame(_ info: SF_INFO) -> Int? {
        let bytes: Int
        switch Int(info.format) & Int(SF_FORMAT_SUBMASK) {
        case Int(SF_FORMAT_PCM_S8), Int(SF_FORMAT_PCM_U8), Int(SF_FORMAT_ULAW), Int(SF_FORMAT_ALAW): bytes = 1
        case Int(SF_FORMAT_PCM_16): bytes = 2
        case Int(SF_FORMAT_PCM_24): bytes = 3
        case Int(SF_FORMAT_PCM_32), Int(SF_FORMAT_FLOAT): bytes = 4
        case Int(SF_FORMAT_DOUBLE): bytes = 8
        default: return nil
        }
        return bytes * Int(info.channels)
    }
}

/// Opens an audio file the way that suits it: libsndfile for files it can seek in, the streaming
/// WAV reader for pipes, FIFOs and devices, which libsndfile cannot read as they arrive (and which
/// says what a folder is).
public enum AudioFile {
    public static func open(_ path: String) throws -> any AudioSource {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw WAVFile.Invalid(description: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        return status.st_mode & S_IFMT == S_IFREG ? try SoundFile(path: path) : try WAVFile(path: path)
    }

    /// What was wrong with a file's audio, in words: data that ended early, samples mended.
    public static func problems(of source: any AudioSource) -> [String] {
        if let file = source as? SoundFile { return [file.shortfall, file.mended].compactMap { $0 } }
        if let file = source as? WAVFile { return [file.shortfall, file.mended].compactMap { $0 } }
        return []
    }

    /// When a file says its recording was made.
    public static func recordedAt(of source: any AudioSource) -> Date? {
        (source as? SoundFile)?.recordedAt
    }

    /// How long a file says it is.
    public static func declaredSeconds(of source: any AudioSource) -> Double? {
        (source as? SoundFile)?.declaredSeconds ?? (source as? WAVFile)?.declaredSeconds
    }
}
