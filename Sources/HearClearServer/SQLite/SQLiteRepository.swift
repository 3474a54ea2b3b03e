import Foundation
import GRDB
import HearClearAnalysis
import HearClearCore

/// The embedded store: one SQLite file in WAL mode. Each write is one transaction, so a check-in,
/// its samples and the cells it changes are stored together or not at all. SQLite runs one write
/// transaction at a time, so check-ins for a venue are analysed one by one without further locks.
public struct SQLiteRepository: Repository {
    let pool: DatabasePool
    /// The calibration for check-ins that bring none, when their model has no offset of its own.
    let defaultCalibrationDB: Double
    /// Told after each commit that may change a venue's answers.
    let changes: VenueChangeFeed
    /// Where check-ins are written, so that concurrent uploads share a transaction.
    let groupCommit: GroupCommit
    /// Copies the WAL into the file beside the writer.
    let checkpointer: WALCheckpointer

    public init(pool: DatabasePool, defaultCalibrationDB: Double = Level.defaultCalibrationDB, changes: VenueChangeFeed = VenueChangeFeed()) {
        self.pool = pool
        self.defaultCalibrationDB = defaultCalibrationDB
        self.changes = changes
        checkpointer = WALCheckpointer(path: pool.path)
        groupCommit = GroupCommit(writer: pool, checkpointer: checkpointer)
    }

    /// Closes the file, once a checkpoint under way has ended, with every page of the WAL copied
    /// into it and the WAL emptied: GRDB's pool otherwise leaves up to the writer's 1,000 pages
    /// there (16 MB), and a file copied without its WAL would lack them. If a reader still holds
    /// the WAL the checkpoint gives up; nothing is lost, SQLite reads the WAL at the next open.
    public func close() throws {
        checkpointer.close()
        _ = try? pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        try pool.close()
    }

    // MARK: Devices

    public func registerDevice(_ registration: DeviceRegistration, tokenHash: Data, at now: Date) async throws -> UUID {
        let id = UUID()
        let record = DeviceRecord(
            seq: nil, id: id, tokenHash: tokenHash, model: registration.model, platform: registration.platform, banned: false, createdAt: now, lastSeenAt: now)
        try await pool.write { db in try record.insert(db) }
        return id
    }

    public func device(tokenHash: Data) async throws -> Device? {
        // Every upload asks: the four columns read from the row, not a whole record decoded
        // through Codable (a sixtieth of the server's CPU under the ingest case, `perf`).
        try await pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT id, model, platform, banned FROM device WHERE token_hash = ?")
            return try Row.fetchOne(statement, arguments: [tokenHash]).map { row in
                Device(id: row[0], model: row[1], platform: row[2], banned: row[3])
            }
        }
    }

    // MARK: Venues

    public func saveVenue(id: String, _ venue: VenueUpsert, by device: UUID, at now: Date) async throws -> VenueSaveOutcome {
        // Counted after the commit, so no cache keeps an answer computed from the old rows as new.
        defer { changes.touch(id) }
        return try await pool.write { db in
            try Self.touch(device: device, at: now, in: db)
            if let alias = try VenueAliasRecord.fetchOne(db, key: id) { return .merged(into: alias.venueId) }
            if let record = try VenueRecord.fetchOne(db, key: id) {
                guard record.ownerDeviceId == device else { return .notOwner }
                try Self.change(record, to: venue, by: .device(device), at: now, in: db)
                return .updated
            }
            let record = VenueRecord(
                id: id, name: venue.name, latitude: venue.latitude, longitude: venue.longitude,
                timezone: venue.timezone, kind: venue.kind, createdAt: now, updatedAt: now, ownerDeviceId: device)
            try record.insert(db)
            try Self.recordChange(of: id, .create, by: .device(device), before: nil, after: record, at: now, in: db)
            return .created
        }
    }

    public func mergedVenue(id: String) async throws -> String? {
        try await pool.read { db in try VenueAliasRecord.fetchOne(db, key: id)?.venueId }
    }

    public func calibrationOffset(model: String) async throws -> Double? {
        try await pool.read { db in try CalibrationRecord.fetchOne(db, key: model)?.offsetDb }
    }

    public func venue(id: String) async throws -> VenueSummary? {
        try await pool.read { db in
            try Self.venueSummaries(db, cell: VenueQuery.overall, literal: "WHERE v.id = \(id)").first
        }
    }

    public func venues(matching query: VenueQuery) async throws -> [VenueSummary] {
        try await pool.read { db in
            var conditions: [SQL] = VenueQuery.likePatterns(eachWordOf: query.nameWords).map { pattern in
                "\(sql: VenueQuery.nameFoldedColumn) LIKE \(pattern) ESCAPE '\\'"
            }
            guard let near = query.near else {
                let whereClause = conditions.isEmpty ? SQL("") : "WHERE " + conditions.joined(separator: " AND ")
                return try Self.venueSummaries(db, cell: query.cell, literal: whereClause + " ORDER BY v.name_folded, v.id LIMIT \(query.limit)")
            }
            let box = near.boundingBox(radius: query.radiusM)
            conditions.append("v.latitude BETWEEN \(box.latitude.lowerBound) AND \(box.latitude.upperBound)")
            if let longitudes = box.longitude {
                conditions.append("v.longitude BETWEEN \(longitudes.lowerBound) AND \(longitudes.upperBound)")
            }
            return query.nearest(try Self.venueSummaries(db, cell: query.cell, literal: "WHERE " + conditions.joined(separator: " AND ")), to: near)
        }
    }

    private static func venueSummaries(_ db: GRDB.Database, cell: LocalHour, literal clause: SQL) throws -> [VenueSummary] {
        let request = SQLRequest<Row>(
            """
            SELECT v.id, v.name, v.latitude, v.longitude, v.timezone, v.kind, l.checkins, \(sql: CellSums.columnList(of: "l"))
            FROM venue v
            LEFT JOIN loudness l ON l.venue_id = v.id AND l.weekday = \(cell.weekday) AND l.hour = \(cell.hour)
            \(clause)
            """)
        return try request.fetchAll(db).map { row in
            let aggregate: LoudnessAggregate? = try (row["checkins"] as Int?).map { checkins in
                LoudnessAggregate(weekday: cell.weekday, hour: cell.hour, checkins: checkins, sums: try CellSums(row: row))
            }
            return VenueSummary(
                id: row["id"],
                venue: VenueUpsert(name: row["name"], latitude: row["latitude"], longitude: row["longitude"], timezone: row["timezone"], kind: row["kind"]),
                aggregate: aggregate)
        }
    }

    // MARK: Check-ins

    public func storeCheckIn(_ checkIn: CheckIn, contentHash: Data, by device: UUID, at now: Date) async throws -> CheckInOutcome {
        let start = ContinuousClock.now
        defer { ServerMetrics.storeCheckInTransaction.recordSeconds((ContinuousClock.now - start).inSeconds) }
        // Analysed and encoded on this request's thread from what a read sees now; the write checks
        // that it still applies. A device keeps its number: one deleted meanwhile fails the
        // insert's foreign key.
        let (deviceSeq, venue) = try await pool.read { db in
            guard let seq = try Self.seq(ofDevice: device, in: db) else {
                throw DatabaseError(resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY, message: "no device \(device.wireString)")
            }
            return (seq, try target(of: checkIn, by: device, in: db))
        }
        let prepared = venue.flatMap { venue in PreparedCheckIn(checkIn, calibrationDB: venue.calibrationDB, timezone: venue.timezone) }
        let stored = try await groupCommit.write { db -> CheckInOutcome in
            if let existing = try CheckInRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM checkin WHERE id = ?"), arguments: [checkIn.id.wireString]) {
                guard existing.contentHash == contentHash, existing.deviceSeq == deviceSeq else { return .conflict }
                return .replayed(existing.stored)
            }
            guard let venue = try target(of: checkIn, by: device, in: db) else { return .unknownVenue }
            let calibration = venue.calibrationDB
            let stillApplies = prepared.map { $0.matches(calibrationDB: calibration, timezone: venue.timezone) } ?? false
            guard let made = stillApplies ? prepared : PreparedCheckIn(checkIn, calibrationDB: calibration, timezone: venue.timezone) else {
                return .unknownVenue
            }

            try Self.touch(device: device, at: now, in: db)
            let analysis = made.analysis
            var record = CheckInRecord(
                seq: nil, id: checkIn.id, venueId: venue.venueID, deviceSeq: deviceSeq, contentHash: contentHash, startedAt: checkIn.startedAt,
                intervalS: checkIn.intervalS, weighting: checkIn.weighting, calibrationDb: calibration,
                calibrationSource: CalibrationSource(of: checkIn),
                samples: checkIn.samples.count, droppedSamples: analysis.droppedSamples,
                levelDb: analysis.levelDB, homeWeekday: analysis.homeHour.weekday, homeHour: analysis.homeHour.hour,
                status: made.storedStatus(), receivedAt: now,
                sampleColumns: made.sampleColumns, classesModel: checkIn.classesModel)
            try record.insert(db)
            guard let seq = record.seq else { throw DatabaseError(message: "the check-in was stored without a row id") }
            let insertEvent = try db.cachedStatement(
                sql: "INSERT INTO event (checkin_seq, t, peak, duration_s, class) VALUES (?, ?, ?, ?, ?)")
            for event in checkIn.events {
                try insertEvent.execute(arguments: [seq, event.t, event.peak, event.durationS, event.sound?.rawValue])
            }
            try Self.storeHours(analysis.hours, checkIn: seq, venueID: venue.venueID, in: db)

            if let joined = made.joined(as: seq) {
                // The outlier rule may decide this check-in's status too.
                let changes = try Self.decide(venueID: venue.venueID, homeHour: analysis.homeHour.hour, joined: joined, in: db)
                record.status = changes.status(of: seq) ?? record.status
            }
            return .created(record.stored)
        }
        // Told after the commit, so no cache keeps an answer computed from the old rows as new.
        if case .created(let checkIn) = stored { changes.touch(checkIn.venueID) }
        return stored
    }

    /// The venue a check-in counts at (the one it names, or the one that was merged into), its
    /// time zone and the calibration that applies to it; nil for a venue nobody created. Only the
    /// two columns: decoding the whole `VenueRecord`, twice an upload, was 5 % of the samples of
    /// GRDB's threads in the growth case's fill (`perf`, docs/scale.md).
    private func target(of checkIn: CheckIn, by device: UUID, in db: GRDB.Database) throws -> (venueID: String, timezone: String, calibrationDB: Double)? {
        let findVenue = try db.cachedStatement(sql: "SELECT id, timezone FROM venue WHERE id = ?")
        var venue = try Row.fetchOne(findVenue, arguments: [checkIn.venueID])
        if venue == nil,
            let target = try String.fetchOne(db.cachedStatement(sql: "SELECT venue_id FROM venue_alias WHERE id = ?"), arguments: [checkIn.venueID])
        {
            // A venue merged into another: the check-in counts there.
            venue = try Row.fetchOne(findVenue, arguments: [target])
        }
        guard let venue else { return nil }
        return (venue[0], venue[1], try checkIn.calibrationDB ?? serverCalibration(forDevice: device, in: db))
    }

    public func uploadedCheckIn(id: UUID, by device: UUID) async throws -> CheckIn? {
        try await pool.read { db in
            guard
                let record = try CheckInRecord.fetchOne(
                    db.cachedStatement(sql: "SELECT c.* FROM checkin c JOIN device d ON d.seq = c.device_seq WHERE c.id = ? AND d.id = ?"),
                    arguments: [id.wireString, device.wireString]),
                let seq = record.seq
            else { return nil }
            let events = try Self.events(of: seq, in: db)
            return CheckIn(
                id: id, venueID: record.venueId, startedAt: record.startedAt, intervalS: record.intervalS, weighting: record.weighting,
                calibrationDB: record.calibrationSource == .checkIn ? record.calibrationDb : nil, samples: try record.storedSamples()?.samples ?? [],
                events: events, classesModel: record.classesModel)
        }
    }

    // MARK: Loudness

    public func loudness(venueID: String) async throws -> [LoudnessAggregate]? {
        try await pool.read { db in
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM venue WHERE id = ?"), arguments: [venueID]) != nil else { return nil }
            return try LoudnessRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM loudness WHERE venue_id = ?"), arguments: [venueID]).map(\.aggregate)
        }
    }

    public func evidence(venueIDs: [String]) async throws -> [String: VenueEvidence] {
        // Plain values out of the read (rows are not Sendable).
        let rows: [VenueEvidence.Row] = try await pool.read { db in
            try SQLRequest<Row>(
                """
                SELECT v.id, v.timezone, c.seq, d.id AS device_id, c.started_at, c.classes_model, c.status, d.banned, h.weekday, h.hour
                FROM venue v JOIN checkin c ON c.venue_id = v.id JOIN device d ON d.seq = c.device_seq JOIN checkin_hour h ON h.checkin_seq = c.seq
                WHERE v.id IN \(venueIDs) AND h.samples > 0 ORDER BY c.seq
                """
            ).fetchAll(db).compactMap { row in
                guard Analysis.counts(status: row["status"], deviceBanned: row["banned"]) else { return nil }
                return (
                    row["id"], row["timezone"], row["seq"], row["device_id"], row["started_at"], row["classes_model"],
                    LocalHour(weekday: row["weekday"], hour: row["hour"])
                )
            }
        }
        return VenueEvidence.grouped(rows)
    }

    public func hourObservations() async throws -> [HourObservation<Int64>] {
        try await pool.read { db in
            try SQLRequest<Row>(
                """
                SELECT c.seq, c.venue_id, v.kind, c.status, d.banned, h.weekday, h.hour, h.samples, h.energy
                FROM checkin c JOIN venue v ON v.id = c.venue_id JOIN device d ON d.seq = c.device_seq JOIN checkin_hour h ON h.checkin_seq = c.seq
                ORDER BY c.seq, h.weekday, h.hour
                """
            ).fetchAll(db).compactMap { row in
                HourObservation(
                    venue: row["venue_id"], kind: row["kind"], checkIn: row["seq"], hour: LocalHour(weekday: row["weekday"], hour: row["hour"]),
                    samples: row["samples"], energy: row["energy"], status: row["status"], deviceBanned: row["banned"])
            }
        }
    }
}
