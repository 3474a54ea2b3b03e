import Foundation
import HearClearCore
import LevelMeter

/// Check-ins on disk until the server has them. Only levels are written, never audio.
///
/// While a session runs, each interval is appended to `<id>.recording` (a JSON header line, then
/// one JSON line per interval, flushed to disk), under an exclusive lock. At the end the check-in
/// is sealed: written to `<id>.json` atomically and the recording removed. A recording whose lock
/// nobody holds is left over from a client that was killed: it is sealed with what it holds, so a
/// crash loses at most the interval being measured. A check-in leaves the outbox only when the
/// server answered 200 or 201, or moves to `rejected/` when it answered another 4xx.
public struct Outbox: Sendable {
    public let folder: URL
    public let rejectedFolder: URL

    public init(paths: ClientPaths) {
        folder = paths.outbox
        rejectedFolder = paths.rejected
    }

    public struct Header: Codable, Sendable {
        public var id: UUID
        public var venueID: String
        public var startedAt: Date
        public var intervalS: Double
        public var calibrationDB: Double?

        public init(id: UUID = UUID(), venueID: String, startedAt: Date, intervalS: Double, calibrationDB: Double?) {
            self.id = id
            self.venueID = venueID
            self.startedAt = startedAt
            self.intervalS = intervalS
            self.calibrationDB = calibrationDB
        }

        enum CodingKeys: String, CodingKey {
            case id
            case venueID = "venue_id"
            case startedAt = "started_at"
            case intervalS = "interval_s"
            case calibrationDB = "calibration_db"
        }
    }

    /// A session being measured, journalled interval by interval.
    public final class Recording {
        public let header: Header
        public let file: URL
        private let descriptor: Int32
        private var samples: [Sample] = []

        init(header: Header, folder: URL) throws {
            self.header = header
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            file = folder.appendingPathComponent("\(header.id.wireString).recording")
            descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND, 0o600)
            guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: file.path]) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { throw CocoaError(.fileLocking, userInfo: [NSFilePathErrorKey: file.path]) }
            try appendLine(try JSONEncoder.outbox.encode(header))
        }

        deinit {
            close(descriptor)
        }

        /// Adds an interval, at upload precision, and flushes it to disk.
        public func append(_ sample: Sample) throws {
            let sample = sample.roundedForUpload
            samples.append(sample)
            try appendLine(try JSONEncoder.outbox.encode(sample))
        }

        private func appendLine(_ data: Data) throws {
            var line = data
            line.append(UInt8(ascii: "\n"))
            let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == line.count, fsync(descriptor) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
            }
        }

        /// Writes the finished check-in to the outbox and removes the journal; `nil` when nothing was measured.
        public func seal() throws -> CheckIn? {
            try Outbox.seal(header: header, samples: samples, recording: file)
        }
    }

    public func begin(_ header: Header) throws -> Recording {
        try Recording(header: header, folder: folder)
    }

    static func seal(header: Header, samples: [Sample], recording: URL) throws -> CheckIn? {
        defer {
            unlink(recording.path)
            DurableFile.syncFolder(recording.deletingLastPathComponent())
        }
        guard !samples.isEmpty else { return nil }
        let checkIn = CheckIn(
            id: header.id, venueID: header.venueID, startedAt: header.startedAt, intervalS: header.intervalS,
            weighting: .a, calibrationDB: header.calibrationDB, samples: samples,
            events: LoudEventDetector.events(in: samples, interval: header.intervalS, calibrationDB: header.calibrationDB ?? Level.defaultCalibrationDB))
        try DurableFile.write(try JSONEncoder.outbox.encode(checkIn), to: recording.deletingPathExtension().appendingPathExtension("json"))
        return checkIn
    }

    /// Seals the recordings nobody is writing any more (left by a client that was killed).
    public func recoverInterruptedRecordings() throws {
        for file in try contents(withExtension: "recording") {
            let descriptor = open(file.path, O_RDONLY)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue }  // still being recorded
            let lines = (try? String(contentsOf: file, encoding: .utf8))?.split(separator: "\n") ?? []
            guard let first = lines.first, let header = try? JSONDecoder.outbox.decode(Header.self, from: Data(first.utf8)) else {
                unlink(file.path)  // killed before its header was on disk: nothing was measured
                continue
            }
            // A line cut short by the kill does not decode and is left out.
            let samples = lines.dropFirst().compactMap { try? JSONDecoder.outbox.decode(Sample.self, from: Data($0.utf8)) }
            _ = try Outbox.seal(header: header, samples: samples, recording: file)
        }
    }

    /// The sealed check-ins waiting to go up, oldest first.
    public func pending() throws -> [(file: URL, checkIn: CheckIn)] {
        try contents(withExtension: "json").compactMap { file in
            guard let checkIn = try? JSONDecoder.outbox.decode(CheckIn.self, from: Data(contentsOf: file)) else {
                try moveAside(file, reason: "the file is not a readable check-in")
                return nil
            }
            return (file, checkIn)
        }
        .sorted { $0.checkIn.startedAt < $1.checkIn.startedAt }
    }

    public func remove(_ file: URL) throws {
        try FileManager.default.removeItem(at: file)
        DurableFile.syncFolder(folder)
    }

    /// Keeps a check-in the server refused in `rejected/`, with the reason next to it.
    public func moveAside(_ file: URL, reason: String) throws {
        try FileManager.default.createDirectory(at: rejectedFolder, withIntermediateDirectories: true)
        let target = rejectedFolder.appendingPathComponent(file.lastPathComponent)
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.moveItem(at: file, to: target)
        try DurableFile.write(Data((reason + "\n").utf8), to: target.deletingPathExtension().appendingPathExtension("reason.txt"))
    }

    private func contents(withExtension fileExtension: String) throws -> [URL] {
        guard FileManager.default.fileExists(atPath: folder.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == fileExtension && !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}

extension JSONEncoder {
    static var outbox: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

extension JSONDecoder {
    static var outbox: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
