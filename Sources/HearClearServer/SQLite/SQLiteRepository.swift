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

    public init(pool: DatabasePool, defaultCalibrationDB: Double = Level.defaultCalibrationDB, changes: VenueChangeFeed = VenueChangeFeed()) {
        self.pool = pool
        self.defaultCalibrationDB = defaultCalibrationDB
        self.changes = changes
        groupCommit = GroupCommit(writer: pool)
    }

    // MARK: Devices

    public func registerDevice(_ registration: DeviceRegistration, tokenHash: Data, at now: Date) async throws -> UUID {
        let id = UUID()
        let record = DeviceRecord(
            id: id, tokenHash: tokenHash, model: registration.model, platform: registration.platform, banned: false, createdAt: now, lastSeenAt: now)
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

    public func venue(id: String) async throws -> VenueSummary? {
        try await pool.read { db in
            try Self.venueSummaries(db, cell: VenueQuery.overall, literal: "WHERE v.id = \(id)").first
        }
    }

    public func venues(matching query: VenueQuery) async throws -> [VenueSummary] {
        try await pool.read { db in
            var conditions: [SQL] = []
            if let pattern = VenueQuery.likePattern(containing: query.nameContains) {
                conditions.append("\(sql: VenueQuery.sqliteNameFolded) LIKE \(pattern) ESCAPE '\\'")
            }
            guard let near = query.near else {
                let whereClause = conditions.isEmpty ? SQL("") : "WHERE " + conditions.joined(separator: " AND ")
                return try Self.venueSummaries(db, cell: query.cell, literal: whereClause + " ORDER BY v.name, v.id LIMIT \(query.limit)")
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
            SELECT v.id, v.name, v.latitude, v.longitude, v.timezone, v.kind, l.checkins, l.samples, l.energy, \(sql: sumColumns(of: "l"))
            FROM venue v
            LEFT JOIN loudness l ON l.venue_id = v.id AND l.weekday = \(cell.weekday) AND l.hour = \(cell.hour)
            \(clause)
            """)
        return try request.fetchAll(db).map { row in
            let aggregate: LoudnessAggregate? = try (row["checkins"] as Int?).map { checkins in
                LoudnessAggregate(
                    weekday: cell.weekday, hour: cell.hour, checkins: checkins, samples: row["samples"], energy: row["energy"], details: DetailEnergies(row: row),
                    spread: try LevelSpread(row: row), sounds: SoundCounts(row: row))
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
        // that it still applies.
        let prepared = try await pool.read { db in try target(of: checkIn, by: device, in: db) }.flatMap { venue, calibration in
            PreparedCheckIn(checkIn, calibrationDB: calibration, timezone: venue.timezone)
        }
        let stored = try await groupCommit.write { db -> CheckInOutcome in
            if let existing = try CheckInRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM checkin WHERE id = ?"), arguments: [checkIn.id.wireString]) {
                guard existing.contentHash == contentHash, existing.deviceId == device else { return .conflict }
                return .replayed(existing.stored)
            }
            guard let (venue, calibration) = try target(of: checkIn, by: device, in: db) else { return .unknownVenue }
            let stillApplies = prepared.map { $0.matches(calibrationDB: calibration, timezone: venue.timezone) } ?? false
            guard let made = stillApplies ? prepared : PreparedCheckIn(checkIn, calibrationDB: calibration, timezone: venue.timezone) else {
                return .unknownVenue
            }

            try Self.touch(device: device, at: now, in: db)
            let analysis = made.analysis
            var record = CheckInRecord(
                seq: nil, id: checkIn.id, venueId: venue.id, deviceId: device, contentHash: contentHash, startedAt: checkIn.startedAt,
                intervalS: checkIn.intervalS, weighting: checkIn.weighting, calibrationDb: calibration,
                calibrationSource: checkIn.calibrationDB == nil ? .server : .checkIn,
                samples: checkIn.samples.count, droppedSamples: analysis.droppedSamples,
                levelDb: analysis.levelDB, homeWeekday: analysis.homeHour.weekday, homeHour: analysis.homeHour.hour,
                status: Analysis.status(keptSamples: analysis.keptSamples, markedOutlier: false, verdict: nil), receivedAt: now,
                sampleColumns: made.sampleColumns)
            try record.insert(db)
            guard let seq = record.seq else { throw DatabaseError(message: "the check-in was stored without a row id") }
            let insertEvent = try db.cachedStatement(
                sql: "INSERT INTO event (checkin_seq, t, peak, duration_s, class) VALUES (?, ?, ?, ?, ?)")
            for event in checkIn.events {
                try insertEvent.execute(arguments: [seq, event.t, event.peak, event.durationS, event.sound?.rawValue])
            }
            try Self.storeHours(analysis.hours, checkIn: seq, venueID: venue.id, in: db)

            if !analysis.isTooShort {
                // The outlier rule may decide this check-in's status too.
                let joined = JoinedCheckIn(key: seq, status: record.status, hours: analysis.hours)
                let changes = try Self.decide(venueID: venue.id, homeHour: analysis.homeHour.hour, joined: joined, in: db)
                record.status = changes.status(of: seq) ?? record.status
            }
            return .created(record.stored)
        }
        // Told after the commit, so no cache keeps an answer computed from the old rows as new.
        if case .created(let checkIn) = stored { changes.touch(checkIn.venueID) }
        return stored
    }

    /// The venue a check-in counts at (the one it names, or the one that was merged into) and the
    /// calibration that applies to it; nil for a venue nobody created.
    private func target(of checkIn: CheckIn, by device: UUID, in db: GRDB.Database) throws -> (VenueRecord, Double)? {
        let findVenue = try db.cachedStatement(sql: "SELECT * FROM venue WHERE id = ?")
        var venue = try VenueRecord.fetchOne(findVenue, arguments: [checkIn.venueID])
        if venue == nil,
            let target = try String.fetchOne(db.cachedStatement(sql: "SELECT venue_id FROM venue_alias WHERE id = ?"), arguments: [checkIn.venueID])
        {
            // A venue merged into another: the check-in counts there.
            venue = try VenueRecord.fetchOne(findVenue, arguments: [target])
        }
        guard let venue else { return nil }
        return (venue, try checkIn.calibrationDB ?? serverCalibration(forDevice: device, in: db))
    }

    public func uploadedCheckIn(id: UUID, by device: UUID) async throws -> CheckIn? {
        try await pool.read { db in
            guard let record = try CheckInRecord.filter(CheckInRecord.Columns.id == id.wireString).fetchOne(db), let seq = record.seq,
                record.deviceId == device
            else { return nil }
            let events = try Self.events(of: seq, in: db)
            return CheckIn(
                id: id, venueID: record.venueId, startedAt: record.startedAt, intervalS: record.intervalS, weighting: record.weighting,
                calibrationDB: record.calibrationSource == .checkIn ? record.calibrationDb : nil, samples: try record.storedSamples()?.samples ?? [],
                events: events)
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
                SELECT v.id, v.timezone, c.seq, c.device_id, c.started_at, c.status, d.banned, h.weekday, h.hour
                FROM venue v JOIN checkin c ON c.venue_id = v.id JOIN device d ON d.id = c.device_id JOIN checkin_hour h ON h.checkin_seq = c.seq
                WHERE v.id IN \(venueIDs) AND h.samples > 0 ORDER BY c.seq
                """
            ).fetchAll(db).compactMap { row in
                guard Analysis.counts(status: row["status"], deviceBanned: row["banned"]) else { return nil }
                return (row["id"], row["timezone"], row["seq"], row["device_id"], row["started_at"], LocalHour(weekday: row["weekday"], hour: row["hour"]))
            }
        }
        return VenueEvidence.grouped(rows)
    }

    public func hourObservations() async throws -> [HourObservation<Int64>] {
        try await pool.read { db in
            try SQLRequest<Row>(
                """
                SELECT c.seq, c.venue_id, v.kind, c.status, d.banned, h.weekday, h.hour, h.samples, h.energy
                FROM checkin c JOIN venue v ON v.id = c.venue_id JOIN device d ON d.id = c.device_id JOIN checkin_hour h ON h.checkin_seq = c.seq
                ORDER BY c.seq, h.weekday, h.hour
                """
            ).fetchAll(db).compactMap { row in
                HourObservation(
                    venue: row["venue_id"], kind: row["kind"], checkIn: row["seq"], hour: LocalHour(weekday: row["weekday"], hour: row["hour"]),
                    samples: row["samples"], energy: row["energy"], status: row["status"], deviceBanned: row["banned"])
            }
        }
    }

    // MARK: Fetching for the rules, saving what they decide

    private static func touch(device: UUID, at now: Date, in db: GRDB.Database) throws {
        try db.cachedStatement(sql: "UPDATE device SET last_seen_at = ? WHERE id = ? AND last_seen_at <= ?").execute(
            arguments: [now.timeIntervalSince1970, device.wireString, now.timeIntervalSince1970 - Device.lastSeenResolution])
    }

    /// The calibration the server applies to a device's check-ins that bring none: its model's
    /// offset from the calibration table, else the store's default.
    func serverCalibration(forDevice device: UUID, in db: GRDB.Database) throws -> Double {
        try Double.fetchOne(
            db.cachedStatement(sql: "SELECT c.offset_db FROM calibration c JOIN device d ON d.model = c.model WHERE d.id = ?"), arguments: [device.wireString]
        ) ?? defaultCalibrationDB
    }

    /// A venue's check-ins as the status rule sees them: all, or those with one home hour.
    static func statusCandidates(venueID: String, homeHour: Int? = nil, in db: GRDB.Database) throws -> [StatusCandidate<Int64>] {
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT c.seq, c.samples - c.dropped_samples AS kept, c.level_db, c.home_weekday, c.home_hour, c.status, c.marked_outlier, d.banned
                    FROM checkin c JOIN device d ON d.id = c.device_id
                    WHERE c.venue_id = ? AND (? IS NULL OR c.home_hour = ?)
                    """),
            arguments: [venueID, homeHour, homeHour])
        var candidates: [StatusCandidate<Int64>] = []
        while let row = try rows.next() {
            candidates.append(
                StatusCandidate(
                    key: row["seq"], keptSamples: row["kept"], levelDB: row["level_db"], home: LocalHour(weekday: row["home_weekday"], hour: row["home_hour"]),
                    status: row["status"], markedOutlier: row["marked_outlier"], deviceBanned: row["banned"]))
        }
        return candidates
    }

    /// Numbers as a JSON array, how a list travels into a fixed statement (`json_each(?)`).
    static func jsonArray(_ numbers: some Collection<some BinaryInteger>) -> String {
        "[\(numbers.map { String($0) }.joined(separator: ","))]"
    }

    /// The per-hour sums of a venue's check-ins (or of some of them), with what decides whether they count.
    static func contributions(venueID: String, checkIns: Set<Int64>? = nil, in db: GRDB.Database) throws -> [HourContribution<Int64>] {
        // The check-ins travel as a JSON array, so the text is fixed and the statement prepared once
        // per connection: written into the SQL, a list made a new statement for every upload, and
        // preparing it was 4 % of ingest (docs/profiling.md, "Ingest").
        let select = """
            SELECT h.checkin_seq, h.weekday, h.hour, h.samples, h.energy, \(Self.sumColumns(of: "h")), c.status, d.banned
            FROM checkin_hour h JOIN checkin c ON c.seq = h.checkin_seq JOIN device d ON d.id = c.device_id
            """
        let rows =
            if let checkIns {
                // `+` keeps SQLite from the venue's index, which would walk every hour of the venue:
                // the check-ins' own rows are found by the primary key.
                try Row.fetchAll(
                    db.cachedStatement(sql: select + " WHERE h.checkin_seq IN (SELECT value FROM json_each(?)) AND +h.venue_id = ?"),
                    arguments: [jsonArray(checkIns), venueID])
            } else {
                try Row.fetchAll(db.cachedStatement(sql: select + " WHERE h.venue_id = ?"), arguments: [venueID])
            }
        return try rows.map { row in
            HourContribution(
                checkIn: row["checkin_seq"], hour: LocalHour(weekday: row["weekday"], hour: row["hour"]),
                share: CheckInAnalysis.HourShare(
                    samples: row["samples"], energy: row["energy"], details: DetailEnergies(row: row), spread: try LevelSpread(row: row),
                    sounds: SoundCounts(row: row)),
                status: row["status"], deviceBanned: row["banned"])
        }
    }

    /// Applies the status rule to a venue's check-ins (those with one home hour, or all), saves the
    /// statuses that change, and brings the venue's cells in step; `joined` is a check-in stored
    /// in this transaction. With `sumAgain`, the cells are summed from scratch whatever changed.
    /// Returns the statuses it changed.
    @discardableResult
    static func decide(
        venueID: String, homeHour: Int? = nil, joined: JoinedCheckIn<Int64>? = nil, sumAgain: Bool = false, in db: GRDB.Database
    ) throws -> [StatusChange<Int64>] {
        let changes = Analysis.statusChanges(among: try statusCandidates(venueID: venueID, homeHour: homeHour, in: db))
        let setStatus = try db.cachedStatement(sql: "UPDATE checkin SET status = ? WHERE seq = ?")
        for change in changes {
            try setStatus.execute(arguments: [change.to, change.key])
            if change.to == .outlier { ServerMetrics.outliersDecided.increment() }
        }
        let cells: [LoudnessAggregate]
        switch sumAgain ? .sumAgain : Analysis.cellUpdate(after: changes, joined: joined) {
        case .add(let read, let known):
            guard !read.isEmpty || !known.isEmpty else { return changes }
            // What the check-ins that start to count add (their cells as if they were all there is)
            // to the stored cells they touch: histograms add bin by bin, which SQL cannot do.
            let additions = Analysis.cells(from: known + (read.isEmpty ? [] : try contributions(venueID: venueID, checkIns: read, in: db)))
            // (The weekdays and hours of a check-in's cells cross to those cells alone, four for a
            // check-in within one hour.)
            let touched = try LoudnessRecord.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM loudness WHERE venue_id = ?
                        AND weekday IN (SELECT value FROM json_each(?)) AND hour IN (SELECT value FROM json_each(?))
                        """),
                arguments: [venueID, jsonArray(Set(additions.keys.map(\.weekday))), jsonArray(Set(additions.keys.map(\.hour)))])
            var totals = additions
            for stored in touched.map(\.aggregate) {
                if let addition = additions[stored.cell] { totals[stored.cell] = stored.adding(addition) }
            }
            cells = Array(totals.values)
        case .sumAgain:
            try LoudnessRecord.filter(LoudnessRecord.Columns.venueId == venueID).deleteAll(db)
            cells = Array(Analysis.cells(from: try contributions(venueID: venueID, in: db)).values)
        }
        let columns = ["checkins", "samples", "energy"] + Self.sumColumnNames
        let write = try db.cachedStatement(
            sql: """
                INSERT INTO loudness (venue_id, weekday, hour, \(columns.joined(separator: ", ")))
                VALUES (?, ?, ?, \(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
                ON CONFLICT (venue_id, weekday, hour) DO UPDATE SET \(columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
                """)
        for cell in cells.sorted(by: { $0.cell < $1.cell }) {
            try write.execute(
                arguments: StatementArguments(
                    [venueID, cell.weekday, cell.hour, cell.checkins, cell.samples, cell.energy]
                        + Self.sumValues(details: cell.details, spread: cell.spread, sounds: cell.sounds)))
        }
        return changes
    }

    /// Decides every status of a venue again and sums its cells from scratch: after a ban, a
    /// calibration change, a merge or a new time zone.
    static func refreshVenue(_ venueID: String, in db: GRDB.Database) throws {
        try decide(venueID: venueID, sumAgain: true, in: db)
    }

    /// Places every check-in of a venue in its local hours again (after its time zone changed),
    /// then decides statuses and sums its cells again.
    static func reanalyseVenue(_ venueID: String, in db: GRDB.Database) throws {
        try reanalyse(try CheckInRecord.filter(CheckInRecord.Columns.venueId == venueID).fetchAll(db), in: db)
        try refreshVenue(venueID, in: db)
    }

    /// Recomputes what check-ins contribute (their hours, energies, level and home hour) from their
    /// samples, with each one's recorded calibration and its venue's time zone. Spikes do not depend
    /// on either, so the dropped flags stay. Statuses and cells are left to `refreshVenue`.
    ///
    /// A check-in whose samples retention dropped keeps its local hours (they cannot be placed
    /// again); a new calibration still applies, as every energy scales by the same factor and
    /// every histogram moves by the same number of bins.
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
            let analysis = CheckInAnalysis(
                samples: try record.storedSamples()?.samples ?? [], startedAt: record.startedAt, calibrationDB: record.calibrationDb, clock: clock)
            try db.execute(literal: "DELETE FROM checkin_hour WHERE checkin_seq = \(seq)")
            try storeHours(analysis.hours, checkIn: seq, venueID: record.venueId, in: db)
            record.levelDb = analysis.levelDB
            record.homeWeekday = analysis.homeHour.weekday
            record.homeHour = analysis.homeHour.hour
            try record.update(db)
        }
    }

    /// A check-in's loud events in time order.
    static func events(of seq: Int64, in db: GRDB.Database) throws -> [LoudEvent] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT t, peak, duration_s, class FROM event WHERE checkin_seq = ? ORDER BY t"), arguments: [seq]).map {
            LoudEvent(t: $0["t"], peak: $0["peak"], durationS: $0["duration_s"], sound: ($0["class"] as String?).flatMap(SoundClasses.Dominant.init))
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
        let factor = Level.energy(shift)
        try db.execute(
            sql: "UPDATE checkin_hour SET energy = energy * ?, \(DetailEnergies.columns.dropFirst().map { "\($0) = \($0) * ?" }.joined(separator: ", ")) WHERE checkin_seq = ?",
            arguments: StatementArguments(Array(repeating: factor, count: DetailEnergies.columns.count) + [seq]))
        let setSpread = try db.cachedStatement(
            sql: "UPDATE checkin_hour SET \(LevelSpread.columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE checkin_seq = ? AND weekday = ? AND hour = ?")
        for row in try Row.fetchAll(db, sql: "SELECT weekday, hour, \(LevelSpread.columns.joined(separator: ", ")) FROM checkin_hour WHERE checkin_seq = ?", arguments: [seq]) {
            let weekday: Int = row["weekday"], hour: Int = row["hour"]
            try setSpread.execute(arguments: StatementArguments(try LevelSpread(row: row).shifted(byDB: shift).storedValues) + [seq, weekday, hour])
        }
    }

    /// A check-in's kept samples per local hour, the rows its venue's cells are summed from.
    static func storeHours(_ hours: [LocalHour: CheckInAnalysis.HourShare], checkIn seq: Int64, venueID: String, in db: GRDB.Database) throws {
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO checkin_hour (checkin_seq, venue_id, weekday, hour, samples, energy, \(sumColumns()))
                VALUES (?, ?, ?, ?, ?, ?, \(Array(repeating: "?", count: sumColumnNames.count).joined(separator: ", ")))
                """)
        for (hour, share) in hours {
            try insert.execute(
                arguments: StatementArguments(
                    [seq, venueID, hour.weekday, hour.hour, share.samples, share.energy] + sumValues(details: share.details, spread: share.spread, sounds: share.sounds)))
        }
    }

    /// The columns of `DetailEnergies`, `LevelSpread` and `SoundCounts` in `checkin_hour` and `loudness`.
    static let sumColumnNames = DetailEnergies.columns + LevelSpread.columns + SoundCounts.columns

    /// `sumColumnNames`, with a table alias.
    static func sumColumns(of table: String? = nil) -> String {
        sumColumnNames.map { column in table.map { "\($0).\(column)" } ?? column }.joined(separator: ", ")
    }

    /// The values of `sumColumnNames`.
    static func sumValues(details: DetailEnergies, spread: LevelSpread, sounds: SoundCounts) -> [(any DatabaseValueConvertible)?] {
        [details.samples] + details.energies + spread.storedValues + sounds.values
    }
}
