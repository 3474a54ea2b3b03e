import Foundation
import GRDB
import HearClearCore

/// The embedded store: one SQLite file in WAL mode. Each write is one transaction, so a check-in,
/// its samples and the aggregates it changes are stored together or not at all.
public struct SQLiteRepository: Repository {
    let pool: DatabasePool

    public init(pool: DatabasePool) {
        self.pool = pool
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
            try DeviceRecord.filter(DeviceRecord.Columns.tokenHash == tokenHash).fetchOne(db)?.device
        }
    }

    // MARK: Venues

    public func saveVenue(id: String, _ venue: VenueUpsert, by device: UUID, at now: Date) async throws -> Bool {
        try await pool.write { db in
            try Self.touch(device: device, at: now, in: db)
            if var record = try VenueRecord.fetchOne(db, key: id) {
                record.name = venue.name
                record.latitude = venue.latitude
                record.longitude = venue.longitude
                record.updatedAt = now.timeIntervalSince1970
                let zoneChanged = record.timezone != venue.timezone
                record.timezone = venue.timezone
                try record.update(db)
                if zoneChanged {
                    // Local weekdays and hours moved: place every check-in again.
                    try Self.reanalyseVenue(id, in: db)
                }
                return false
            }
            try VenueRecord(
                id: id, name: venue.name, latitude: venue.latitude, longitude: venue.longitude,
                timezone: venue.timezone, createdAt: now.timeIntervalSince1970, updatedAt: now.timeIntervalSince1970
            ).insert(db)
            return true
        }
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
        return try await pool.write { db in
            if let existing = try CheckInRecord.filter(CheckInRecord.Columns.id == checkIn.id.wireString).fetchOne(db) {
                guard existing.contentHash == contentHash, existing.deviceId == deviceID else { return .conflict }
                return .replayed(existing.stored)
            }
            guard let venue = try VenueRecord.fetchOne(db, key: checkIn.venueID),
                let clock = VenueClock(timeZoneIdentifier: venue.timezone)
            else { return .unknownVenue }

            try Self.touch(device: device, at: now, in: db)
            let calibration = try checkIn.calibrationDB ?? Self.serverCalibration(forDevice: deviceID, settings: settings, in: db)
            let analysis = CheckInAnalysis(checkIn: checkIn, calibrationDB: calibration, clock: clock)
            var record = CheckInRecord(
                seq: nil, id: checkIn.id.wireString, venueId: checkIn.venueID, deviceId: deviceID,
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
            let insertHour = try db.cachedStatement(
                sql: "INSERT INTO checkin_hour (checkin_seq, venue_id, weekday, hour, samples, energy) VALUES (?, ?, ?, ?, ?, ?)")
            for (hour, share) in analysis.hours {
                try insertHour.execute(arguments: [seq, checkIn.venueID, hour.weekday, hour.hour, share.samples, share.energy])
            }

            if !analysis.isTooShort {
                let changed = try Self.decideOutliers(venueID: checkIn.venueID, hour: analysis.homeHour.hour, in: db)
                try Self.refreshLoudness(venueID: checkIn.venueID, of: changed.union([seq]), in: db)
            }
            return .created(try CheckInRecord.fetchOne(db, key: seq)!.stored)
        }
    }

    // MARK: Loudness

    public func loudness(venueID: String) async throws -> [LoudnessAggregate]? {
        try await pool.read { db in
            guard try VenueRecord.exists(db, key: venueID) else { return nil }
            return try LoudnessRecord.filter(LoudnessRecord.Columns.venueId == venueID).fetchAll(db).map(\.aggregate)
        }
    }

    // MARK: Keeping the aggregates in step

    private static func touch(device: UUID, at now: Date, in db: GRDB.Database) throws {
        try db.execute(
            literal: "UPDATE device SET last_seen_at = \(now.timeIntervalSince1970) WHERE id = \(device.wireString)")
    }

    /// The calibration the server applies to a device's check-ins that bring none: its model's
    /// offset from the calibration table, else the configured default.
    static func serverCalibration(forDevice deviceID: String, settings: ServerSettings, in db: GRDB.Database) throws -> Double {
        try SQLRequest<Double>(
            "SELECT c.offset_db FROM calibration c JOIN device d ON d.model = c.model WHERE d.id = \(deviceID)"
        ).fetchOne(db) ?? settings.defaultCalibrationDB
    }

    /// Applies the outlier rule again to every check-in of the venue whose home hour is `hour`
    /// (any weekday: the rule falls back to the hour when a weekday-hour has too few check-ins).
    /// Check-ins of banned devices and those an operator marked neither serve as references nor
    /// change. Returns the check-ins whose status changed.
    static func decideOutliers(venueID: String, hour: Int, in db: GRDB.Database) throws -> Set<Int64> {
        var changed: Set<Int64> = []
        for decision in try outlierDecisions(venueID: venueID, hour: hour, in: db) where decision.stored != decision.decided {
            try db.execute(literal: "UPDATE checkin SET status = \(decision.decided.rawValue) WHERE seq = \(decision.seq)")
            changed.insert(decision.seq)
        }
        return changed
    }

    /// What the outlier rule says of each check-in it applies to at this venue and home hour, next
    /// to the status stored; nothing is written.
    static func outlierDecisions(venueID: String, hour: Int, in db: GRDB.Database) throws -> [(seq: Int64, stored: CheckInStatus, decided: CheckInStatus)] {
        let rows = try SQLRequest<Row>(
            """
            SELECT c.seq, c.level_db, c.home_weekday, c.status
            FROM checkin c JOIN device d ON d.id = c.device_id
            WHERE c.venue_id = \(venueID) AND c.home_hour = \(hour) AND c.status != \(CheckInStatus.tooShort.rawValue)
              AND c.level_db IS NOT NULL AND d.banned = 0 AND c.marked_outlier = 0
            """
        ).fetchAll(db)
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
        for span in spans.sorted() {
            let aggregate = try computeAggregate(venueID: venueID, span: span, in: db)
            if aggregate.checkins > 0 {
                try LoudnessRecord(
                    venueId: venueID, weekday: span.weekday, hour: span.hour, checkins: aggregate.checkins,
                    samples: aggregate.samples, energy: aggregate.energy
                ).save(db)
            } else {
                try LoudnessRecord.deleteOne(db, key: ["venue_id": venueID, "weekday": span.weekday, "hour": span.hour])
            }
        }
    }

    /// An aggregate straight from the check-ins: the definition the cache must always equal.
    static func computeAggregate(venueID: String, span: LocalHour, in db: GRDB.Database) throws -> LoudnessAggregate {
        let anyWeekday = span.weekday == LoudnessAggregate.everyWeekday
        let anyHour = span.hour == LoudnessAggregate.everyHour
        let row = try SQLRequest<Row>(
            """
                SELECT COUNT(DISTINCT h.checkin_seq) AS checkins, COALESCE(SUM(h.samples), 0) AS samples,
                       COALESCE(SUM(h.energy), 0) AS energy
                FROM checkin_hour h
                JOIN checkin c ON c.seq = h.checkin_seq
                JOIN device d ON d.id = c.device_id
                WHERE h.venue_id = \(venueID) AND (\(anyWeekday) OR h.weekday = \(span.weekday))
                  AND (\(anyHour) OR h.hour = \(span.hour))
                  AND c.status = \(CheckInStatus.accepted.rawValue) AND d.banned = 0
                """
        ).fetchOne(db)!
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
    static func reanalyse(_ checkIns: [CheckInRecord], in db: GRDB.Database) throws {
        var clocks: [String: VenueClock] = [:]
        for var record in checkIns {
            guard let seq = record.seq else { continue }
            if clocks[record.venueId] == nil {
                clocks[record.venueId] = try VenueRecord.fetchOne(db, key: record.venueId).flatMap { VenueClock(timeZoneIdentifier: $0.timezone) }
            }
            guard let clock = clocks[record.venueId] else { continue }
            let samples = try SQLRequest<Sample>("SELECT t, avg, peak FROM sample WHERE checkin_seq = \(seq) ORDER BY t").fetchAll(db)
            let analysis = CheckInAnalysis(
                samples: samples, startedAt: record.startedAt, intervalS: record.intervalS, venueID: record.venueId,
                calibrationDB: record.calibrationDb, clock: clock)
            try db.execute(literal: "DELETE FROM checkin_hour WHERE checkin_seq = \(seq)")
            for (hour, share) in analysis.hours {
                try db.execute(
                    literal: """
                        INSERT INTO checkin_hour (checkin_seq, venue_id, weekday, hour, samples, energy)
                        VALUES (\(seq), \(record.venueId), \(hour.weekday), \(hour.hour), \(share.samples), \(share.energy))
                        """)
            }
            record.levelDb = analysis.levelDB
            record.homeWeekday = analysis.homeHour.weekday
            record.homeHour = analysis.homeHour.hour
            try record.update(db)
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
