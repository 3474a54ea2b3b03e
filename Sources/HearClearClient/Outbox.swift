import Foundation
import HearClearCore
import LevelMeter

/// Check-ins on disk until the server has them. Only levels are written, never audio.
///
/// While a session runs, each interval is appended to `<id>.recording` (a JSON header line, then
/// one JSON line per interval, `IntervalRecord`, flushed to disk), under an exclusive lock. At the
/// end the check-in is sealed: written to `<id>.json` atomically, in API v2's columns (older
/// clients wrote API v1's objects, which still read), and the recording removed. A recording whose lock
/// nobody holds is left over from a client that was killed: it is sealed with what it holds, so a
/// crash loses at most the interval being measured. A check-in leaves the outbox only when the
/// server answered 200 or 201, or moves to `rejected/` when the server itself refused its content
/// (`APIClient.Failure.rejectsCheckIn`); `hearclear outbox --retry` puts it back.
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

        /// Without an id, one ordered by `startedAt`, so that a store's index of the ids grows at its end.
        public init(id: UUID? = nil, venueID: String, startedAt: Date, intervalS: Double, calibrationDB: Double?) {
            self.id = id ?? UUID(timeOrderedAt: startedAt)
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
            try DurableFile.makePrivateFolder(folder)
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
            try appendLine(try JSONEncoder.outbox.encode(IntervalRecord(sample)))
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
        // The recording keeps each interval as the meter handed it on; the check-in, the series judged whole.
        let classesModel = SoundClassifier.shippedVersion(classifying: samples)
        let samples = classesModel == nil ? samples : SoundClassifier.shipped.judgedBesideNeighbours(samples)
        let checkIn = CheckIn(
            id: header.id, venueID: header.venueID, startedAt: header.startedAt, intervalS: header.intervalS,
            weighting: .a, calibrationDB: header.calibrationDB, samples: samples,
            events: LoudEventDetector.events(in: samples, interval: header.intervalS, calibrationDB: header.calibrationDB ?? Level.defaultCalibrationDB),
            classesModel: classesModel)
        try DurableFile.write(try CheckInV2(checkIn).body(.outbox), to: sealed(recording))
        return checkIn
    }

    /// Where a recording's check-in goes when it is sealed.
    static func sealed(_ recording: URL) -> URL {
        recording.deletingPathExtension().appendingPathExtension("json")
    }

    /// Seals the recordings nobody is writing any more (left by a client that was killed).
    public func recoverInterruptedRecordings() throws {
        for file in try contents(withExtension: "recording") {
            let descriptor = open(file.path, O_RDONLY)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue }  // still being recorded
            DurableFile.removeLeftovers(of: Outbox.sealed(file))
            let lines = (try? String(contentsOf: file, encoding: .utf8))?.split(separator: "\n") ?? []
            guard let first = lines.first, let header = try? JSONDecoder.outbox.decode(Header.self, from: Data(first.utf8)) else {
                unlink(file.path)  // killed before its header was on disk: nothing was measured
                continue
            }
            // A line cut short by the kill does not decode and is left out.
            let samples = lines.dropFirst().compactMap { try? JSONDecoder.outbox.decode(IntervalRecord.self, from: Data($0.utf8)).sample }
            _ = try Outbox.seal(header: header, samples: samples, recording: file)
        }
    }

    /// The sealed check-ins waiting to go up, oldest first, each read for what it says of itself
    /// only (`PendingCheckIn`): a backlog of long check-ins costs its files' names, not their levels.
    public func pending() throws -> [PendingCheckIn] {
        try contents(withExtension: "json").compactMap { file in
            guard let data = try? Data(contentsOf: file) else { return nil }  // gone meanwhile: uploaded by another process
            guard let pending = PendingCheckIn(file: file, data: data) else {
                try moveAside(file, reason: "the file is not a readable check-in")
                return nil
            }
            return pending
        }
        .sorted { ($0.startedAt, $0.id.wireString) < ($1.startedAt, $1.id.wireString) }
    }

    /// Removes an uploaded check-in; one already gone (another process uploaded it too) is no error.
    public func remove(_ file: URL) throws {
        guard unlink(file.path) == 0 || errno == ENOENT else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: file.path])
        }
        DurableFile.syncFolder(folder)
    }

    /// Keeps a check-in the server refused in `rejected/`, with the reason next to it.
    public func moveAside(_ file: URL, reason: String) throws {
        try DurableFile.makePrivateFolder(rejectedFolder)
        let target = rejectedFolder.appendingPathComponent(file.lastPathComponent)
        try DurableFile.write(Data((reason + "\n").utf8), to: Self.reasonFile(of: target))
        // rename() replaces a previous copy at once; a file already gone was handled by another process.
        guard rename(file.path, target.path) == 0 || errno == ENOENT else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: target.path])
        }
        DurableFile.syncFolder(folder)
        DurableFile.syncFolder(rejectedFolder)
    }

    /// A check-in the server refused, with its reason.
    public struct Rejected: Sendable {
        public let id: String
        public let file: URL
        public let reason: String
    }

    /// The check-ins set aside in `rejected/`, by file name.
    public func rejected() throws -> [Rejected] {
        guard FileManager.default.fileExists(atPath: rejectedFolder.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: rejectedFolder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" && !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
            .map { file in
                let reason = (try? String(contentsOf: Self.reasonFile(of: file), encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                return Rejected(id: file.deletingPathExtension().lastPathComponent, file: file, reason: reason ?? "no reason recorded")
            }
    }

    /// Puts a rejected check-in back in the queue; `false` when no rejected check-in has that id.
    public func retry(_ id: String) throws -> Bool {
        guard let entry = try rejected(id: id) else { return false }
        try DurableFile.makePrivateFolder(folder)
        guard rename(entry.file.path, folder.appendingPathComponent(entry.file.lastPathComponent).path) == 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: entry.file.path])
        }
        unlink(Self.reasonFile(of: entry.file).path)
        DurableFile.syncFolder(folder)
        DurableFile.syncFolder(rejectedFolder)
        return true
    }

    /// Deletes a rejected check-in and its reason, for good; `false` when no rejected check-in has that id.
    public func discard(_ id: String) throws -> Bool {
        guard let entry = try rejected(id: id) else { return false }
        guard unlink(entry.file.path) == 0 || errno == ENOENT else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: entry.file.path])
        }
        unlink(Self.reasonFile(of: entry.file).path)
        DurableFile.syncFolder(rejectedFolder)
        return true
    }

    private func rejected(id: String) throws -> Rejected? {
        try rejected().first { $0.id == id.lowercased() }
    }

    /// Where the server's reason for refusing a check-in is kept, next to it in `rejected/`.
    private static func reasonFile(of checkIn: URL) -> URL {
        checkIn.deletingPathExtension().appendingPathExtension("reason.txt")
    }

    /// Deletes every check-in, waiting or rejected (when the device forgets itself).
    public func clear() throws {
        for folder in [folder, rejectedFolder] where FileManager.default.fileExists(atPath: folder.path) {
            try FileManager.default.removeItem(at: folder)
        }
    }

    /// The sync lock, held until `release()`; nil when another process holds it.
    public func lockForSync() throws -> SyncLock? {
        // Next to the outbox, not in it: the outbox holds check-ins only.
        let lockFile = folder.deletingLastPathComponent().appendingPathComponent("sync.lock")
        try DurableFile.makePrivateFolder(folder)
        let descriptor = open(lockFile.path, O_RDWR | O_CREAT, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: lockFile.path]) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return SyncLock(descriptor: descriptor)
    }

    /// The outbox's sync lock (flock: the system releases it if the process dies).
    public struct SyncLock: Sendable {
        let descriptor: Int32

        public func release() {
            close(descriptor)
        }
    }

    private func contents(withExtension fileExtension: String) throws -> [URL] {
        guard FileManager.default.fileExists(atPath: folder.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == fileExtension && !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}

extension JSONEncoder {
    public static var outbox: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

extension JSONDecoder {
    public static var outbox: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
