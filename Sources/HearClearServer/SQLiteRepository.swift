import Foundation
import GRDB
import HearClearCore
import Synchronization

/// The embedded store: one SQLite file in WAL mode. Each write is one transaction, so a check-in,
/// its samples and the aggregates it changes are stored together or not at all.
public struct SQLiteRepository: Repository {
    let pool: DatabasePool
    /// Which venues' answers changed since a count was read; for caches of encoded answers.
    let changes = VenueChanges()

    public init(pool: DatabasePool) {
        self.pool = pool
    }

    public func changeCount(venueID: String) -> UInt64 {
        changes.count(for: venueID)
    }

    // MARK: Devices

    public func registerDevice(_ registration: DeviceRegistration, tokenHash: Data, at now: Date) async throws -> UUID {
        let id = UUID()
        let record = DeviceRecord(
            id: id.wireString, tokenHash: tokenHash, model: registration.model,
            platform: registration.platform, banned: false, createdAt: now.timeIntervalSince1970,
            lastSeenAt: now.timeIntervalSince1970)
        try await pool.write { db in try record.insert(db) }
        return id
    }

    public func device(tokenHash: Data) async throws -> Device? {
        try await pool.read { db in
            try DeviceRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM device WHERE token_hash = ?"), arguments: [tokenHash])?.device
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
                guard record.ownerDeviceId == device.wireString else { return .notOwner }
                try Self.change(record, to: venue, by: .device(device), at: now, in: db)
                return .updated
            }
            let record = VenueRecord(
                id: id, name: venue.name, latitude: venue.latitude, longitude: venue.longitude,
                timezone: venue.timezone, createdAt: now.timeIntervalSince1970, updatedAt: now.timeIntervalSince1970,
                ownerDeviceId: device.wireString)
            try record.insert(db)
            try Self.recordChange(of: id, .create, by: .device(device), before: nil, after: record, at: now, in: db)
            return .created
        }
    }

    public func mergedVenue(id: String) async throws -> String? {
        try await pool.read { db in try VenueAliasRecord.fetchOne(db, key: id)?.venueId }
    }

    public func venue(id: String) async throws -> VenueSummary? {
        try await pool.read { db in
            try Self.venueSummaries(
                db, literal: "WHERE v.id = \(id)"
            ).first
        }
    }

    public func venues(matching query: VenueQuery) async throws -> [VenueSummary] {
        try await pool.read { db in
            var conditions: [SQL] = []
            if let text = query.nameContains, !text.isEmpty {
                conditions.append("v.name LIKE \("%" + Self.escapeLike(text) + "%") ESCAPE '\\'")
            }
            guard let near = query.near else {
                let whereClause = conditions.isEmpty ? SQL("") : "WHERE " + conditions.joined(separator: " AND ")
                return try Self.venueSummaries(db, literal: whereClause + " ORDER BY v.name, v.id LIMIT \(query.limit)")
            }
            let box = near.boundingBox(radius: query.radiusM)
            conditions.append("v.latitude BETWEEN \(box.latitude.lowerBound) AND \(box.latitude.upperBound)")
            if let longitudes = box.longitude {
                conditions.append("v.longitude BETWEEN \(longitudes.lowerBound) AND \(longitudes.upperBound)")
            }
            let candidates = try Self.venueSummaries(db, literal: "WHERE " + conditions.joined(separator: " AND "))
            return candidates.compactMap { summary -> VenueSummary? in
                let distance = near.distance(to: Coordinate(latitude: summary.venue.latitude, longitude: summary.venue.longitude))
                guard distance <= query.radiusM else { return nil }
                var summary = summary
                summary.distanceM = distance
                return summary
            }
            .sorted { ($0.distanceM!, $0.id) < ($1.distanceM!, $1.id) }
            .prefix(query.limit)
            .map { $0 }
        }
    }

    private static func venueSummaries(_ db: GRDB.Database, literal clause: SQL) throws -> [VenueSummary] {
        let request = SQLRequest<Row>(
            """
            SELECT v.id, v.name, v.latitude, v.longitude, v.timezone, l.checkins, l.samples, l.energy
            FROM venue v
            LEFT JOIN loudness l ON l.venue_id = v.id AND l.weekday = \(LoudnessAggregate.everyWeekday) AND l.hour = \(LoudnessAggregate.everyHour)
            \(clause)
            """)
        return try request.fetchAll(db).map { row in
            let overall: LoudnessAggregate? = (row["checkins"] as Int?).map { checkins in
                LoudnessAggregate(
                    weekday: LoudnessAggregate.everyWeekday, hour: LoudnessAggregate.everyHour,
                    checkins: checkins, samples: row["samples"], energy: row["energy"])
            }
            return VenueSummary(
                id: row["id"],
                venue: VenueUpsert(name: row["name"], latitude: row["latitude"], longitude: row["longitude"], timezone: row["timezone"]),
                overall: overall)
        }
    }

    static func escapeLike(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    // MARK: Check-ins

    public func storeCheckIn(
        _ checkIn: CheckIn, contentHash: Data, by device: UUID, settings: ServerSettings, at now: Date
    ) async throws -> CheckInOutcome {
        let deviceID = device.wireString
        let start = ContinuousClock.now
        defer { ServerMetrics.storeCheckInTransaction.recordSeconds((ContinuousClock.now - start).inSeconds) }
        let stored = try await pool.write { db -> CheckInOutcome in
            if let existing = try CheckInRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM checkin WHERE id = ?"), arguments: [checkIn.id.wireString]) {
                guard existing.contentHash == contentHash, existing.deviceId == deviceID else { return .conflict }
                return .replayed(existing.stored)
            }
            let findVenue = try db.cachedStatement(sql: "SELECT * FROM venue WHERE id = ?")
            var venue = try VenueRecord.fetchOne(findVenue, arguments: [checkIn.venueID])
            if venue == nil,
                let target = try String.fetchOne(db.cachedStatement(sql: "SELECT venue_id FROM venue_alias WHERE id = ?"), arguments: [checkIn.venueID])
            {
                // A venue merged into another: the check-in counts there.
                venue = try VenueRecord.fetchOne(findVenue, arguments: [target])
            }
            guard let venue, let clock = VenueClock(timeZoneIdentifier: venue.timezone) else { return .unknownVenue }
            let venueID = venue.id

            try Self.touch(device: device, at: now, in: db)
            let calibration = try checkIn.calibrationDB ?? Self.serverCalibration(forDevice: deviceID, settings: settings, in: db)
            let analysis = CheckInAnalysis(checkIn: checkIn, calibrationDB: calibration, clock: clock)
            var record = CheckInRecord(
                seq: nil, id: checkIn.id.wireString, venueId: venueID, deviceId: deviceID,
                contentHash: contentHash, startedAt: checkIn.startedAt.timeIntervalSince1970,
                intervalS: checkIn.intervalS, weighting: checkIn.weighting.rawValue, calibrationDb: calibration,
                calibrationSource: checkIn.calibrationDB == nil ? "default" : "checkin",
                samples: checkIn.samples.count, droppedSamples: analysis.dropped.filter { $0 }.count,
                levelDb: analysis.levelDB, homeWeekday: analysis.homeHour.weekday, homeHour: analysis.homeHour.hour,
                status: (analysis.isTooShort ? CheckInStatus.tooShort : .accepted).rawValue,
                receivedAt: now.timeIntervalSince1970)
            try record.insert(db)
            let seq = record.seq!

            let insertSample = try db.cachedStatement(
                sql: "INSERT INTO sample (checkin_seq, t, avg, peak, dropped) VALUES (?, ?, ?, ?, ?)")
            for (index, sample) in checkIn.samples.enumerated() {
                try insertSample.execute(arguments: [seq, sample.t, sample.avg, sample.peak, analysis.dropped[index]])
            }
            let insertEvent = try db.cachedStatement(
                sql: "INSERT INTO event (checkin_seq, t, peak, duration_s) VALUES (?, ?, ?, ?)")
            for event in checkIn.events {
                try insertEvent.execute(arguments: [seq, event.t, event.peak, event.durationS])
            }
            try Self.storeHours(of: analysis, checkIn: seq, venueID: venueID, in: db)

            if !analysis.isTooShort {
                let changed = try Self.decideOutliers(venueID: venueID, hour: analysis.homeHour.hour, in: db)
                try Self.refreshLoudness(venueID: venueID, of: changed.union([seq]), in: db)
            }
            return .created(try CheckInRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM checkin WHERE seq = ?"), arguments: [seq])!.stored)
        }
        // Counted after the commit, so no cache keeps an answer computed from the old rows as new.
        if case .created(let checkIn) = stored { changes.touch(checkIn.venueID) }
        return stored
    }

    // MARK: Loudness

    public func loudness(venueID: String) async throws -> [LoudnessAggregate]? {
        try await pool.read { db in
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM venue WHERE id = ?"), arguments: [venueID]) != nil else { return nil }
            return try LoudnessRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM loudness WHERE venue_id = ?"), arguments: [venueID]).map(\.aggregate)
        }
    }

    // MARK: Keeping the aggregates in step

    private static func touch(device: UUID, at now: Date, in db: GRDB.Database) throws {
        try db.cachedStatement(sql: "UPDATE device SET last_seen_at = ? WHERE id = ?").execute(arguments: [now.timeIntervalSince1970, device.wireString])
    }

    /// The calibration the server applies to a device's check-ins that bring none: its model's
    /// offset from the calibration table, else the configured default.
    static func serverCalibration(forDevice deviceID: String, settings: ServerSettings, in db: GRDB.Database) throws -> Double {
        try Double.fetchOne(
            db.cachedStatement(sql: "SELECT c.offset_db FROM calibration c JOIN device d ON d.model = c.model WHERE d.id = ?"), arguments: [deviceID]
        ) ?? settings.defaultCalibrationDB
    }

    /// Applies the outlier rule again to every check-in of the venue whose home hour is `hour`
    /// (any weekday: the rule falls back to the hour when a weekday-hour has too few check-ins).
    /// Check-ins of banned devices and those an operator marked neither serve as references nor
    /// change. Returns the check-ins whose status changed.
    static func decideOutliers(venueID: String, hour: Int, in db: GRDB.Database) throws -> Set<Int64> {
        var changed: Set<Int64> = []
        for decision in try outlierDecisions(venueID: venueID, hour: hour, in: db) where decision.stored != decision.decided {
            try db.cachedStatement(sql: "UPDATE checkin SET status = ? WHERE seq = ?").execute(arguments: [decision.decided.rawValue, decision.seq])
            if decision.decided == .outlier { ServerMetrics.outliersDecided.increment() }
            changed.insert(decision.seq)
        }
        return changed
    }

    /// What the outlier rule says of each check-in it applies to at this venue and home hour, next
    /// to the status stored; nothing is written.
    static func outlierDecisions(venueID: String, hour: Int, in db: GRDB.Database) throws -> [(seq: Int64, stored: CheckInStatus, decided: CheckInStatus)] {
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT c.seq, c.level_db, c.home_weekday, c.status
                    FROM checkin c JOIN device d ON d.id = c.device_id
                    WHERE c.venue_id = ? AND c.home_hour = ? AND c.status != 'too_short'
                      AND c.level_db IS NOT NULL AND d.banned = 0 AND c.marked_outlier = 0
                    """),
            arguments: [venueID, hour])
        let candidates = rows.map { row in
            (seq: row["seq"] as Int64, level: row["level_db"] as Double, weekday: row["home_weekday"] as Int,
             status: CheckInStatus(rawValue: row["status"]) ?? .accepted)
        }
        return candidates.map { candidate in
            let others = candidates.filter { $0.seq != candidate.seq }.map { (level: $0.level, weekday: $0.weekday) }
            let references = Analysis.references(forWeekday: candidate.weekday, among: others)
            let isOutlier = Analysis.isOutlier(candidate.level, among: references.levels) ?? false
            return (candidate.seq, candidate.status, isOutlier ? .outlier : .accepted)
        }
    }

    /// Recomputes, from `checkin_hour`, every cached aggregate the given check-ins fall in.
    static func refreshLoudness(venueID: String, of checkIns: Set<Int64>, in db: GRDB.Database) throws {
        guard !checkIns.isEmpty else { return }
        let hours = try SQLRequest<Row>(
            "SELECT DISTINCT weekday, hour FROM checkin_hour WHERE checkin_seq IN \(Array(checkIns))"
        ).fetchAll(db).map { LocalHour(weekday: $0["weekday"], hour: $0["hour"]) }
        try refreshLoudness(venueID: venueID, hours: hours, in: db)
    }

    /// Recomputes the cached aggregates of these local hours, and of their weekdays, their hours and overall.
    static func refreshLoudness(venueID: String, hours: [LocalHour], in db: GRDB.Database) throws {
        var spans: Set<LocalHour> = []
        for hour in hours {
            spans.insert(hour)
            spans.insert(LocalHour(weekday: hour.weekday, hour: LoudnessAggregate.everyHour))
            spans.insert(LocalHour(weekday: LoudnessAggregate.everyWeekday, hour: hour.hour))
            spans.insert(LocalHour(weekday: LoudnessAggregate.everyWeekday, hour: LoudnessAggregate.everyHour))
        }
        let upsert = try db.cachedStatement(
            sql: """
                INSERT INTO loudness (venue_id, weekday, hour, checkins, samples, energy) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (venue_id, weekday, hour) DO UPDATE SET checkins = excluded.checkins, samples = excluded.samples, energy = excluded.energy
                """)
        let delete = try db.cachedStatement(sql: "DELETE FROM loudness WHERE venue_id = ? AND weekday = ? AND hour = ?")
        for span in spans.sorted() {
            let aggregate = try computeAggregate(venueID: venueID, span: span, in: db)
            if aggregate.checkins > 0 {
                try upsert.execute(arguments: [venueID, span.weekday, span.hour, aggregate.checkins, aggregate.samples, aggregate.energy])
            } else {
                try delete.execute(arguments: [venueID, span.weekday, span.hour])
            }
        }
    }

    /// An aggregate straight from the check-ins: the definition the cache must always equal.
    static func computeAggregate(venueID: String, span: LocalHour, in db: GRDB.Database) throws -> LoudnessAggregate {
        let anyWeekday = span.weekday == LoudnessAggregate.everyWeekday
        let anyHour = span.hour == LoudnessAggregate.everyHour
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT COUNT(DISTINCT h.checkin_seq) AS checkins, COALESCE(SUM(h.samples), 0) AS samples,
                           COALESCE(SUM(h.energy), 0) AS energy
                    FROM checkin_hour h
                    JOIN checkin c ON c.seq = h.checkin_seq
                    JOIN device d ON d.id = c.device_id
                    WHERE h.venue_id = ? AND (? OR h.weekday = ?) AND (? OR h.hour = ?)
                      AND c.status = 'accepted' AND d.banned = 0
                    """),
            arguments: [venueID, anyWeekday, span.weekday, anyHour, span.hour])!
        return LoudnessAggregate(
            weekday: span.weekday, hour: span.hour, checkins: row["checkins"], samples: row["samples"], energy: row["energy"])
    }

    /// Places every check-in of a venue in its local hours again (after its time zone changed),
    /// then decides outliers and rebuilds the venue's aggregates.
    static func reanalyseVenue(_ venueID: String, in db: GRDB.Database) throws {
        try reanalyse(try CheckInRecord.filter(CheckInRecord.Columns.venueId == venueID).fetchAll(db), in: db)
        try refreshVenue(venueID, in: db)
    }

    /// Recomputes what check-ins contribute (their hours, energies, level and home hour) from their
    /// samples, with each one's recorded calibration and its venue's time zone. Spikes do not depend
    /// on either, so the dropped flags stay. Aggregates are left to `refreshVenue`.
    ///
    /// A check-in whose samples retention dropped keeps its local hours (they cannot be placed
    /// again); a new calibration still applies, as every energy scales by the same factor.
    static func reanalyse(_ checkIns: [CheckInRecord], in db: GRDB.Database) throws {
        var clocks: [String: VenueClock] = [:]
        for var record in checkIns {
            guard let seq = record.seq else { continue }
            if record.samplesPrunedAt != nil {
                try recalibratePruned(record, in: db)
                continue
            }
            if clocks[record.venueId] == nil {
                clocks[record.venueId] = try VenueRecord.fetchOne(db, key: record.venueId).flatMap { VenueClock(timeZoneIdentifier: $0.timezone) }
            }
            guard let clock = clocks[record.venueId] else { continue }
            let samples = try SQLRequest<Sample>("SELECT t, avg, peak FROM sample WHERE checkin_seq = \(seq) ORDER BY t").fetchAll(db)
            let analysis = CheckInAnalysis(
                samples: samples, startedAt: record.startedAt, intervalS: record.intervalS, venueID: record.venueId,
                calibrationDB: record.calibrationDb, clock: clock)
            try db.execute(literal: "DELETE FROM checkin_hour WHERE checkin_seq = \(seq)")
            try storeHours(of: analysis, checkIn: seq, venueID: record.venueId, in: db)
            record.levelDb = analysis.levelDB
            record.homeWeekday = analysis.homeHour.weekday
            record.homeHour = analysis.homeHour.hour
            try record.update(db)
        }
    }

    /// Applies a pruned check-in's new calibration to its stored level and per-hour energies.
    private static func recalibratePruned(_ record: CheckInRecord, in db: GRDB.Database) throws {
        guard let seq = record.seq,
            let stored = try Double.fetchOne(db, sql: "SELECT calibration_db FROM checkin WHERE seq = ?", arguments: [seq])
        else { return }
        let shift = record.calibrationDb - stored
        var updated = record
        updated.levelDb = record.levelDb.map { $0 + shift }
        try updated.update(db)
        try db.execute(literal: "UPDATE checkin_hour SET energy = energy * \(Level.energy(shift)) WHERE checkin_seq = \(seq)")
    }

    /// A check-in's kept samples per local hour, the rows its venue's aggregates are summed from.
    static func storeHours(of analysis: CheckInAnalysis, checkIn seq: Int64, venueID: String, in db: GRDB.Database) throws {
        let insert = try db.cachedStatement(
            sql: "INSERT INTO checkin_hour (checkin_seq, venue_id, weekday, hour, samples, energy) VALUES (?, ?, ?, ?, ?, ?)")
        for (hour, share) in analysis.hours {
            try insert.execute(arguments: [seq, venueID, hour.weekday, hour.hour, share.samples, share.energy])
        }
    }

    /// Decides the outliers of every home hour of a venue again and rebuilds all its aggregates:
    /// after a ban, a calibration change or a new time zone.
    static func refreshVenue(_ venueID: String, in db: GRDB.Database) throws {
        let hours = try SQLRequest<Int>("SELECT DISTINCT home_hour FROM checkin WHERE venue_id = \(venueID)").fetchAll(db)
        for hour in hours {
            _ = try decideOutliers(venueID: venueID, hour: hour, in: db)
        }
        try LoudnessRecord.filter(LoudnessRecord.Columns.venueId == venueID).deleteAll(db)
        let hoursWithSamples = try SQLRequest<Row>("SELECT DISTINCT weekday, hour FROM checkin_hour WHERE venue_id = \(venueID)")
            .fetchAll(db).map { LocalHour(weekday: $0["weekday"], hour: $0["hour"]) }
        try refreshLoudness(venueID: venueID, hours: hoursWithSamples, in: db)
    }
}

/// Counts changes per venue (and for all at once), so caches of encoded answers know when to let
/// go. Counted in memory: only writes through this process are seen.
final class VenueChanges: Sendable {
    private let counts = Mutex<(all: UInt64, venues: [String: UInt64])>((0, [:]))

    func touch(_ venueID: String) {
        counts.withLock { $0.venues[venueID, default: 0] += 1 }
    }

    func touchAll() {
        counts.withLock { $0.all += 1 }
    }

    func count(for venueID: String) -> UInt64 {
        counts.withLock { $0.all << 32 | ($0.venues[venueID] ?? 0) }
    }
}

extension Sample: FetchableRecord {
    public init(row: Row) throws {
        self.init(t: row["t"], avg: row["avg"], peak: row["peak"])
    }
}

extension CheckInRecord {
    var stored: StoredCheckIn {
        StoredCheckIn(
            id: UUID(uuidString: id)!, venueID: venueId, samples: samples, droppedSamples: droppedSamples,
            levelDB: levelDb, status: CheckInStatus(rawValue: status)!)
    }
}
