import ArgumentParser
import AudioInput
import Foundation
import HearClearClient
import HearClearCore

@main
struct Hearclear: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearclear",
        abstract: "Measure how loud a venue is and share it with a HearClear server.",
        discussion: "Only per-interval levels ever leave the program: no audio is stored or sent.",
        subcommands: [
            Register.self, Calibrate.self, VenueCommand.self, CheckInCommand.self, SyncCommand.self, OutboxCommand.self,
            LoudnessCommand.self, Quiet.self, Hearing.self, Meter.self, Analyze.self, Devices.self, Forget.self,
        ])
}

/// Where audio comes from and how it is measured; the same in `checkin` and `meter`.
struct AudioOptions: ParsableArguments {
    @OptionGroup var source: AudioSourceOptions

    @Option(help: "dB added to dBFS to estimate dB SPL (default: the one saved with `hearclear calibrate`).", transform: Self.decibels)
    var calibration: Double?

    @Option(help: "Seconds per measurement interval.")
    var interval: Double = 1

    /// The recording `--file` names, if any.
    var file: String? { source.file }

    func validate() throws {
        try Self.validate(interval: interval, calibration: calibration)
    }

    /// A calibration as typed. A decimal comma, as many keyboards write it, is told how it is read
    /// rather than refused as "invalid".
    static func decibels(_ text: String) throws -> Double {
        guard let value = Double(text) else {
            let pointed = text.replacingOccurrences(of: ",", with: ".")
            throw ValidationError(Double(pointed) == nil ? "a calibration is a number of dB, like 112.5" : "write the decimals after a point: \(pointed)")
        }
        return value
    }

    /// The interval's and the calibration's rules, which `analyze` shares.
    static func validate(interval: Double, calibration: Double?) throws {
        guard interval.isFinite, interval >= 0.1, interval <= 60 else { throw ValidationError("--interval must be between 0.1 and 60 seconds") }
        if let calibration, !Level.plausibleDB.contains(calibration) { throw ValidationError("--calibration must be \(Level.plausibleDBText) dB") }
    }

    /// When a recording began: `--started-at`, else, for a file, the date it carries (a `DATE`
    /// tag), else its modification time (when the recorder finished writing it) less its length;
    /// else now, for the microphone.
    func startedAt(_ option: Date?, source: any AudioSource) -> Date {
        Self.startedAt(option, file: file, source: source)
    }

    /// What names a recording, so that this device checking it in again is the same check-in to
    /// the server (its id, `UUID(timeOrderedAt:naming:)`): the device, the venue, the start, the
    /// file's size and rate, and what it holds (`FileChecksum`), without which two recordings of one
    /// length and start were one id. Nil for the microphone and for a pipe, which are never
    /// measured twice.
    func recordingName(device: String, venueID: String, startedAt: Date, source: any AudioSource) -> String? {
        guard let file, let attributes = try? FileManager.default.attributesOfItem(atPath: file),
            attributes[.type] as? FileAttributeType == .typeRegular, let size = attributes[.size] as? Int,
            let checksum = FileChecksum.crc32(ofFileAt: file)
        else { return nil }
        return "\(device) \(venueID) \(Int64(startedAt.timeIntervalSince1970)) \(size) \(source.sampleRate) \(String(checksum, radix: 16))"
    }

    static func startedAt(_ option: Date?, file: String?, source: any AudioSource) -> Date {
        if let option { return option }
        if let recorded = AudioFile.recordedAt(of: source) { return recorded }
        guard let file, let modified = (try? FileManager.default.attributesOfItem(atPath: file))?[.modificationDate] as? Date,
            let length = AudioFile.declaredSeconds(of: source)
        else { return Date() }
        return modified.addingTimeInterval(-length)
    }

    /// The calibration in force: the option, else the saved one.
    func calibrationDB(_ config: ClientConfig) -> Double? {
        calibration ?? config.calibrationDB
    }
}

extension Weighting: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(rawValue: argument.uppercased())
    }
}

extension VenueKind: ExpressibleByArgument {}

/// A moment like `2026-11-20T21:15:00+11:00` (ISO 8601, with its offset or Z), or, as people
/// write one, `2026-11-20 21:15` without an offset: this computer's time zone.
struct MomentArgument: ExpressibleByArgument {
    let date: Date
    /// The offset it was written with, for saying other moments the same way.
    let timeZone: TimeZone

    init?(argument: String) {
        if let date = Timestamp.parse(argument) {
            self.date = date
            if let offset = argument.firstMatch(of: /([+-])(\d\d):?(\d\d)$/) {
                let seconds = ((Int(offset.2) ?? 0) * 60 + (Int(offset.3) ?? 0)) * 60
                timeZone = TimeZone(secondsFromGMT: offset.1 == "-" ? -seconds : seconds) ?? .gmt
            } else {
                timeZone = .gmt
            }
        } else if let date = Self.localTime(argument) {
            self.date = date
            timeZone = .current
        } else {
            return nil
        }
    }

    /// A date and a time of day without an offset, with a space or a `T` between them, seconds
    /// optional, read on this computer's clock.
    static func localTime(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        for format in ["yyyy-MM-dd HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd'T'HH:mm:ss"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}

/// A duration option like `90s`, `5m` or `2h`.
struct DurationArgument: ExpressibleByArgument {
    let seconds: Double

    init?(argument: String) {
        guard let seconds = try? DurationText.seconds(argument) else { return nil }
        self.seconds = seconds
    }

    init(seconds: Double) {
        self.seconds = seconds
    }

    var defaultValueDescription: String { DurationText.text(seconds) }
}

/// The saved config and the paths, as every command that talks to the server needs them.
struct Setup {
    let paths = ClientPaths()
    let config: ClientConfig

    init() throws {
        config = try ClientConfig.load(from: paths.configFile)
    }

    func client(needsToken: Bool = false, timeout: TimeInterval = 30) throws -> APIClient {
        let server = try config.serverURL()
        let token = config.token(for: server)
        if needsToken && token == nil {
            guard config.token != nil, let registered = config.server else {
                throw CommandFailure("this device is not registered: run `hearclear register --server URL` first")
            }
            throw CommandFailure(
                "this device is registered with \(registered), not \(server.absoluteString) (HEARCLEAR_SERVER): its token goes to no other server. To use that one too, register with it under another HEARCLEAR_CONFIG")
        }
        return APIClient(server: server, token: token, timeout: timeout, versions: ServerVersions(paths: paths))
    }
}

/// Says on standard error what was wrong with a file's audio: less than its header declared,
/// samples mended (`AudioFile.problems`).
func noteFileProblems(of source: any AudioSource) {
    for problem in AudioFile.problems(of: source) { note(problem) }
}

func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// Writes to standard error (progress and messages that are not the command's data).
func note(_ text: String, terminator: String = "\n") {
    FileHandle.standardError.write(Data((text + terminator).utf8))
}
