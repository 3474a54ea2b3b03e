import Foundation
import GRDB
import HearClearAnalysis
import HearClearCore

extension SQLiteRepository: AdminStore {
    public func totals() async throws -> AdminTotals {
        try await pool.read { db in try Self.totals(db) }
    }

    public func dashboard(recent: Int, days: Int, until now: Date) async throws -> AdminDashboard {
        let today = (now.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400
        let first = today - Double(days - 1) * 86_400
        return try await pool.read { db in
            // Plain values out of the read (rows are not Sendable, and would make it the blocking overload).
            var byDay: [Double: Int] = [:]
            let rows = try SQLRequest<Row>(
                """
                SELECT CAST(received_at / 86400 AS INTEGER) * 86400 AS day, COUNT(*) AS count
                FROM checkin WHERE received_at >= \(first) GROUP BY day
                """
            ).fetchAll(db)
            for row in rows { byDay[row["day"]] = row["count"] }
            let recentOrder: SQL = " ORDER BY c.received_at DESC, c.seq DESC LIMIT \(recent)"
            return AdminDashboard(
                totals: try Self.totals(db),
                recentVenues: try Self.venueListings(db, literal: "ORDER BY v.created_at DESC, v.id LIMIT \(recent)"),
                recentDevices: try Self.deviceListings(db, literal: "ORDER BY d.created_at DESC LIMIT \(recent)"),
                recentCheckIns: try Self.checkInListings(db, literal: recentOrder),
                leftOutCheckIns: try Self.checkInListings(db, literal: "WHERE c.status != \(CheckInStatus.accepted)" + recentOrder),
                perDay: (0..<days).map { index in
                    let day = first + Double(index) * 86_400
                    return (Date(timeIntervalSince1970: day), byDay[day] ?? 0)
                })
        }
    }

    static func totals(_ db: GRDB.Database) throws -> AdminTotals {
        guard let row = try Row.fetchOne(
            db,
            sql: """
                SELECT (SELECT COUNT(*) FROM venue) AS venues, (SELECT COUNT(*) FROM device) AS devices,
                       COUNT(*) AS checkins, COALESCE(SUM(samples), 0) AS samples, COALESCE(SUM(dropped_samples), 0) AS dropped,
                       COALESCE(SUM(status = ?), 0) AS outliers, COALESCE(SUM(status = ?), 0) AS too_short
                FROM checkin
                """, arguments: [CheckInStatus.outlier, CheckInStatus.tooShort])
        else { return AdminTotals() }
        return AdminTotals(
            venues: row["venues"], devices: row["devices"], checkIns: row["checkins"], samples: row["samples"],
            droppedSamples: row["dropped"], outlierCheckIns: row["outliers"], tooShortCheckIns: row["too_short"])
    }

    public func venues(search: String?, offset: Int, limit: Int) async throws -> (venues: [VenueListing], total: Int) {
        try await pool.read { db in
            var filter = SQL("")
            if let idPattern = VenueQuery.likePattern(containing: search) {
                let name = VenueQuery.likePatterns(eachWordOf: search).map { pattern -> SQL in
                    "\(sql: VenueQuery.nameFoldedColumn) LIKE \(pattern) ESCAPE '\\'"
                }
                filter = "WHERE (" + name.joined(separator: " AND ") + ") OR v.id LIKE \(idPattern) ESCAPE '\\'"
            }
            let total = try SQLRequest<Int>("SELECT COUNT(*) FROM venue v \(filter)").fetchOne(db) ?? 0
            let venues = try Self.venueListings(
                db, literal: filter + " ORDER BY latest IS NULL, latest DESC, v.name_folded, v.id LIMIT \(limit) OFFSET \(offset)")
            return (venues, total)
        }
    }

    public func loudestVenues(in window: LocalWindow, offset: Int, limit: Int) async throws -> (venues: [(venue: VenueListing, levelDB: Double)], total: Int) {
        try await pool.read { db in
            // Per weekday-hour cells when a weekday is chosen, else the every-weekday spans (which count a check-in once).
            let weekday = window.weekday ?? LoudnessAggregate.everyWeekday
            let spans: SQL = "l.weekday = \(weekday) AND l.hour BETWEEN \(window.hours.lowerBound) AND \(window.hours.upperBound)"
            let total = try SQLRequest<Int>("SELECT COUNT(DISTINCT l.venue_id) FROM loudness l WHERE \(spans)").fetchOne(db) ?? 0
            let rows = try SQLRequest<Row>(
                """
                SELECT l.venue_id, SUM(l.samples) AS samples, SUM(l.energy) AS energy
                FROM loudness l WHERE \(spans)
                GROUP BY l.venue_id ORDER BY SUM(l.energy) / SUM(l.samples) DESC, l.venue_id LIMIT \(limit) OFFSET \(offset)
                """
            ).fetchAll(db)
            let ids: [String] = rows.map { $0["venue_id"] }
            let listings = Dictionary(uniqueKeysWithValues: try Self.venueListings(db, literal: "WHERE v.id IN \(ids)").map { ($0.id, $0) })
            let venues = rows.compactMap { row -> (VenueListing, Double)? in
                guard let listing = listings[row["venue_id"]] else { return nil }
                let samples: Int = row["samples"], energy: Double = row["energy"]
                return (listing, Level.level(energy: energy / Double(samples)))
            }
            return (venues, total)
        }
    }

    public func venueDetail(id: String) async throws -> VenueDetail? {
        try await pool.read { db -> VenueDetail? in
            guard let venue = try VenueRecord.fetchOne(db, key: id) else { return nil }
            let decoder = JSONDecoder()
            let history = try SQLRequest<VenueChangeRecord>("SELECT * FROM venue_change WHERE venue_id = \(id) ORDER BY seq DESC").fetchAll(db).map { change in
                VenueChange(
                    changedAt: change.changedAt, actor: change.actor, action: change.action,
                    before: change.before.flatMap { try? decoder.decode(VenueSnapshot.self, from: Data($0.utf8)) },
                    after: change.after.flatMap { try? decoder.decode(VenueSnapshot.self, from: Data($0.utf8)) })
            }
            return VenueDetail(
                id: id, venue: venue.upsert, owner: venue.ownerDeviceId,
                aggregates: try LoudnessRecord.filter(LoudnessRecord.Columns.venueId == id).fetchAll(db).map(\.aggregate),
                checkIns: try Self.checkInListings(db, literal: "WHERE c.venue_id = \(id) ORDER BY c.started_at DESC, c.seq DESC"),
                history: history)
        }
    }

    public func checkInDetail(id: UUID) async throws -> CheckInDetail? {
        try await pool.read { db -> CheckInDetail? in
            guard let listing = try Self.checkInListings(db, literal: "WHERE c.id = \(id.wireString)").first,
                let record = try CheckInRecord.filter(CheckInRecord.Columns.id == id.wireString).fetchOne(db), let seq = record.seq,
                let venue = try VenueRecord.fetchOne(db, key: record.venueId)
            else { return nil }
            let samples: [(sample: Sample, dropped: Bool)] = try record.storedSamples().map { zip($0.samples, $0.dropped).map { ($0, $1) } } ?? []
            let events = try Self.events(of: seq, in: db)
            let candidates = try Self.statusCandidates(venueID: record.venueId, homeHour: record.homeHour, in: db)
            return CheckInDetail(
                listing: listing, timezone: venue.timezone, intervalS: record.intervalS, calibrationDB: record.calibrationDb,
                calibrationSource: record.calibrationSource, samples: samples, events: events,
                verdict: candidates.first { $0.key == seq }.flatMap { Analysis.outlierVerdict(for: $0, among: candidates) })
        }
    }

    public func devices() async throws -> [DeviceListing] {
        try await pool.read { db in try Self.deviceListings(db, literal: "ORDER BY d.last_seen_at DESC") }
    }

    public func calibrations() async throws -> CalibrationTable {
        try await pool.read { db in
            let offsets = try CalibrationRecord.order(Column("model")).fetchAll(db).map { CalibrationTable.ModelOffset(model: $0.model, offsetDB: $0.offsetDb) }
            let models = try String.fetchAll(db, sql: "SELECT DISTINCT model FROM device ORDER BY model")
            let own = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.id AS device_id, d.model, c.calibration_db
                    FROM (SELECT device_seq, calibration_db, calibration_source, received_at FROM checkin ORDER BY received_at DESC LIMIT ?) c
                    JOIN device d ON d.seq = c.device_seq
                    WHERE c.calibration_source = ? AND NOT d.banned
                    ORDER BY c.received_at DESC
                    """, arguments: [CalibrationTable.window, CalibrationSource.checkIn]
            ).compactMap { row -> CalibrationTable.OwnCalibration? in
                guard let device = row["device_id"] as UUID? else { return nil }
                return CalibrationTable.OwnCalibration(device: device, model: row["model"], calibrationDB: row["calibration_db"])
            }
            return CalibrationTable(offsets: offsets, models: models, own: own)
        }
    }

    // MARK: Changes

    public func setOutlierMark(checkIn: UUID, marked: Bool) async throws -> Bool {
        let venue = try await pool.write { db -> String? in
            guard var record = try CheckInRecord.filter(CheckInRecord.Columns.id == checkIn.wireString).fetchOne(db) else { return nil }
            guard record.markedOutlier != marked else { return record.venueId }
            record.markedOutlier = marked
            try record.update(db)
            // The status rule gives the mark's status, and may change the others at its hour.
            try Self.decide(venueID: record.venueId, homeHour: record.homeHour, in: db)
            return record.venueId
        }
        if let venue { changes.touch(venue) }
        return venue != nil
    }

    public func setBanned(device: UUID, banned: Bool) async throws -> Bool {
        let venues = try await pool.write { db -> [String]? in
            guard let seq = try Self.seq(ofDevice: device, in: db) else { return nil }
            try db.execute(literal: "UPDATE device SET banned = \(banned) WHERE seq = \(seq)")
            let venues = try SQLRequest<String>("SELECT DISTINCT venue_id FROM checkin WHERE device_seq = \(seq)").fetchAll(db)
            for venue in venues { try Self.refreshVenue(venue, in: db) }
            return venues
        }
        venues?.forEach(changes.touch)
        return venues != nil
    }

    public func setCalibration(model: String, offsetDB: Double?, at now: Date) async throws {
        let venues = try await pool.write { db -> Set<String> in
            if let offsetDB {
                try CalibrationRecord(model: model, offsetDb: offsetDB, updatedAt: now).save(db)
            } else {
                _ = try CalibrationRecord.deleteOne(db, key: model)
            }
            let offset = offsetDB ?? defaultCalibrationDB
            var affected = try SQLRequest<CheckInRecord>(
                """
                SELECT c.* FROM checkin c JOIN device d ON d.seq = c.device_seq
                WHERE d.model = \(model) AND c.calibration_source = \(CalibrationSource.server)
                """
            ).fetchAll(db)
            for index in affected.indices { affected[index].calibrationDb = offset }
            try Self.reanalyse(affected, in: db)
            let venues = Set(affected.map(\.venueId))
            for venue in venues { try Self.refreshVenue(venue, in: db) }
            return venues
        }
        venues.forEach(changes.touch)
    }

    // MARK: Listings

    private static func venueListings(_ db: GRDB.Database, literal clause: SQL) throws -> [VenueListing] {
        try SQLRequest<Row>(
            """
            SELECT v.id, v.name, v.timezone,
                   (SELECT COUNT(*) FROM checkin c WHERE c.venue_id = v.id) AS checkins,
                   (SELECT MAX(c.received_at) FROM checkin c WHERE c.venue_id = v.id) AS latest
            FROM venue v \(clause)
            """
        ).fetchAll(db).map { row in
            VenueListing(
                id: row["id"], name: row["name"], timezone: row["timezone"], checkIns: row["checkins"],
                latestCheckIn: (row["latest"] as Double?).map(Date.init(timeIntervalSince1970:)))
        }
    }

    private static func deviceListings(_ db: GRDB.Database, literal clause: SQL) throws -> [DeviceListing] {
        try SQLRequest<Row>(
            """
            SELECT d.id, d.model, d.platform, d.banned, d.created_at, d.last_seen_at,
                   (SELECT COUNT(*) FROM checkin c WHERE c.device_seq = d.seq) AS checkins,
                   (SELECT COUNT(*) FROM checkin c WHERE c.device_seq = d.seq AND c.status = \(CheckInStatus.outlier)) AS outliers
            FROM device d \(clause)
            """
        ).fetchAll(db).compactMap { row in
            guard let id = row["id"] as UUID? else { return nil }
            return DeviceListing(
                id: id, model: row["model"], platform: row["platform"], banned: row["banned"],
                firstSeen: Date(timeIntervalSince1970: row["created_at"]), lastSeen: Date(timeIntervalSince1970: row["last_seen_at"]),
                checkIns: row["checkins"], outliers: row["outliers"])
        }
    }

    private static func checkInListings(_ db: GRDB.Database, literal clause: SQL) throws -> [CheckInListing] {
        try SQLRequest<Row>(
            """
            SELECT c.id, c.venue_id, v.name AS venue_name, d.id AS device_id, d.model, c.started_at, c.received_at,
                   c.samples, c.dropped_samples, c.level_db, c.status, c.marked_outlier, d.banned
            FROM checkin c JOIN venue v ON v.id = c.venue_id JOIN device d ON d.seq = c.device_seq
            \(clause)
            """
        ).fetchAll(db).compactMap { row in
            guard let id = row["id"] as UUID?, let device = row["device_id"] as UUID?, let status = row["status"] as CheckInStatus? else { return nil }
            return CheckInListing(
                id: id, venueID: row["venue_id"], venueName: row["venue_name"], deviceID: device, deviceModel: row["model"],
                startedAt: Date(timeIntervalSince1970: row["started_at"]), receivedAt: Date(timeIntervalSince1970: row["received_at"]),
                samples: row["samples"], droppedSamples: row["dropped_samples"], levelDB: row["level_db"], status: status,
                markedOutlier: row["marked_outlier"], deviceBanned: row["banned"])
        }
    }
}
