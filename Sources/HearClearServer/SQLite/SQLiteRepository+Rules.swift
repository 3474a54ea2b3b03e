import Foundation
import GRDB
import HearClearAnalysis
import HearClearCore

// Fetching what the rules of `Analysis` need and saving what they decide: the same steps as the
// PostgreSQL store's, in SQLite's SQL.
extension SQLiteRepository {
    static func touch(device: UUID, at now: Date, in db: GRDB.Database) throws {
        try db.cachedStatement(sql: "UPDATE device SET last_seen_at = ? WHERE id = ? AND last_seen_at <= ?").execute(
            arguments: [now.timeIntervalSince1970, device.wireString, now.timeIntervalSince1970 - Device.lastSeenResolution])
    }

    /// The row number a device's check-ins keep (the API names a device by its id); nil for no
    /// such device.
    static func seq(ofDevice device: UUID, in db: GRDB.Database) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM device WHERE id = ?"), arguments: [device.wireString])
    }

    /// The calibration the server applies to a device's check-ins that bring none: its model's
    /// offset from the calibration table, else the store's default.
    func serverCalibration(forDevice device: UUID, in db: GRDB.Database) throws -> Double {
        try Double.fetchOne(
            db.cachedStatement(sql: "SELECT c.offset_db FROM calibration c JOIN device d ON d.model = c.model WHERE d.id = ?"), arguments: [device.wireString]
        ) ?? defaultCalibrationDB
    }

    /// The statement of a venue's status candidates: all its check-ins (the venue's id to bind), or
    /// those of one home hour (then the hour too). Every column it reads from `checkin` is in
    /// `checkin_venue_home` (migration 0019), so the check-ins' rows, each beside its seconds'
    /// blob, are not read at all. Two statements, not `(? IS NULL OR c.home_hour = ?)`: SQLite
    /// plans a statement once, and with that condition its plan walked every check-in of the venue
    /// rather than one hour's.
    static func statusCandidatesSQL(oneHomeHour: Bool) -> String {
        """
        SELECT c.seq, c.samples - c.dropped_samples AS kept, c.level_db, c.home_weekday, c.home_hour, c.status, c.marked_outlier, d.banned
        FROM checkin c JOIN device d ON d.seq = c.device_seq
        WHERE c.venue_id = ?\(oneHomeHour ? " AND c.home_hour = ?" : "")
        """
    }

    /// A venue's check-ins as the status rule sees them: all, or those with one home hour.
    static func statusCandidates(venueID: String, homeHour: Int? = nil, in db: GRDB.Database) throws -> [StatusCandidate<Int64>] {
        let rows =
            if let homeHour {
                try Row.fetchCursor(db.cachedStatement(sql: statusCandidatesSQL(oneHomeHour: true)), arguments: [venueID, homeHour])
            } else {
                try Row.fetchCursor(db.cachedStatement(sql: statusCandidatesSQL(oneHomeHour: false)), arguments: [venueID])
            }
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
        let rows =
            if let checkIns {
                // `+` keeps SQLite from the venue's index, which would walk every hour of the venue:
                // the check-ins' own rows are found by the primary key.
                try Row.fetchAll(
                    db.cachedStatement(sql: contributionSelect + " WHERE h.checkin_seq IN (SELECT value FROM json_each(?)) AND +h.venue_id = ?"),
                    arguments: [jsonArray(checkIns), venueID])
            } else {
                try Row.fetchAll(db.cachedStatement(sql: contributionSelect + " WHERE h.venue_id = ?"), arguments: [venueID])
            }
        return try rows.map(contribution)
    }

    /// The per-hour sums of every check-in of a venue in some cells of one weekday and hour.
    static func contributions(venueID: String, inCells cells: Set<LocalHour>, in db: GRDB.Database) throws -> [HourContribution<Int64>] {
        let select = try db.cachedStatement(sql: contributionSelect + " WHERE h.venue_id = ? AND h.weekday = ? AND h.hour = ?")
        return try cells.flatMap { try Row.fetchAll(select, arguments: [venueID, $0.weekday, $0.hour]).map(contribution) }
    }

    private static let contributionSelect = """
        SELECT h.checkin_seq, h.weekday, h.hour, \(CellSums.columnList(of: "h")), c.status, d.banned
        FROM checkin_hour h JOIN checkin c ON c.seq = h.checkin_seq JOIN device d ON d.seq = c.device_seq
        """

    private static func contribution(_ row: Row) throws -> HourContribution<Int64> {
        HourContribution(
            checkIn: row["checkin_seq"], hour: LocalHour(weekday: row["weekday"], hour: row["hour"]), sums: try CellSums(row: row),
            status: row["status"], deviceBanned: row["banned"])
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
        let writes: CellWrites
        switch sumAgain ? .sumAgain(nil) : Analysis.cellUpdate(after: changes, joined: joined.map { [$0] } ?? []) {
        case .add(let read, let known):
            guard !read.isEmpty || !known.isEmpty else { return changes }
            let additions = Analysis.cells(from: known + (read.isEmpty ? [] : try contributions(venueID: venueID, checkIns: read, in: db)))
            writes = Analysis.cellWrites(adding: additions, to: try cells(of: venueID, selected: Analysis.storedCells(adding: additions.keys), in: db))
        case .sumAgain(nil):
            writes = Analysis.cellWrites(summingAllFrom: try contributions(venueID: venueID, in: db))
        case .sumAgain(let changes?):
            let hourCells = try hours(of: changes.map(\.key), in: db)
            let inCells = try contributions(venueID: venueID, inCells: hourCells, in: db)
            writes =
                try Analysis.cellWrites(summingAgain: changes, from: inCells, stored: try cells(of: venueID, selected: Analysis.storedCells(shifting: hourCells), in: db))
                ?? Analysis.cellWrites(
                    summingAgain: changes, from: inCells, storedWithParts: try cells(of: venueID, selected: Analysis.storedCells(summingAgain: hourCells), in: db))
        }
        try write(writes, venueID: venueID, in: db)
        return changes
    }

    /// The local hours some check-ins' per-hour sums are in, read from the primary key alone.
    static func hours(of checkIns: [Int64], in db: GRDB.Database) throws -> Set<LocalHour> {
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT weekday, hour FROM checkin_hour WHERE checkin_seq IN (SELECT value FROM json_each(?))"),
            arguments: [jsonArray(checkIns)])
        var hours: Set<LocalHour> = []
        while let row = try rows.next() { hours.insert(LocalHour(weekday: row[0], hour: row[1])) }
        return hours
    }

    /// A venue's cells that `selection` selects.
    static func cells(of venueID: String, selected selection: CellSelection, in db: GRDB.Database) throws -> [LoudnessAggregate] {
        // A text for each match, as SQLite plans a statement once: with both, the primary key
        // finds each cell; with either, the venue's cells are read through.
        let condition =
            switch selection.match {
            case .both: "weekday IN (SELECT value FROM json_each(?)) AND hour IN (SELECT value FROM json_each(?))"
            case .either: "(weekday IN (SELECT value FROM json_each(?)) OR hour IN (SELECT value FROM json_each(?)))"
            }
        return try LoudnessRecord.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM loudness WHERE venue_id = ? AND " + condition),
            arguments: [venueID, jsonArray(selection.weekdays), jsonArray(selection.hours)]
        ).map(\.aggregate)
    }

    static func write(_ writes: CellWrites, venueID: String, in db: GRDB.Database) throws {
        switch writes.deleted {
        case .none: break
        case .every: try LoudnessRecord.filter(LoudnessRecord.Columns.venueId == venueID).deleteAll(db)
        case .cells(let cells):
            let delete = try db.cachedStatement(sql: "DELETE FROM loudness WHERE venue_id = ? AND weekday = ? AND hour = ?")
            for cell in cells { try delete.execute(arguments: [venueID, cell.weekday, cell.hour]) }
        }
        let columns = LoudnessAggregate.columns
        let upsert = try db.cachedStatement(
            sql: """
                INSERT INTO loudness (venue_id, weekday, hour, \(columns.joined(separator: ", ")))
                VALUES (?, ?, ?, \(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
                ON CONFLICT (venue_id, weekday, hour) DO UPDATE SET \(columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
                """)
        for cell in writes.written {
            try upsert.execute(
                arguments: StatementArguments(
                    [venueID.databaseValue, cell.weekday.databaseValue, cell.hour.databaseValue, cell.checkins.databaseValue] + cell.sums.databaseValues
                        + [cell.rounding.databaseValue]))
        }
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
                samples: try record.storedSamples()?.samples ?? [], startedAt: record.startedAt, intervalS: record.intervalS,
                calibrationDB: record.calibrationDb, clock: clock)
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

    /// Applies a pruned check-in's new calibration to its stored level and per-hour sums.
    private static func recalibratePruned(_ record: CheckInRecord, in db: GRDB.Database) throws {
        guard let seq = record.seq,
            let stored = try Double.fetchOne(db, sql: "SELECT calibration_db FROM checkin WHERE seq = ?", arguments: [seq])
        else { return }
        let shift = record.calibrationDb - stored
        var updated = record
        updated.levelDb = record.levelDb.map { $0 + shift }
        try updated.update(db)
        let update = try db.cachedStatement(
            sql: "UPDATE checkin_hour SET \(CellSums.columns.map { "\($0.name) = ?" }.joined(separator: ", ")) WHERE checkin_seq = ? AND weekday = ? AND hour = ?")
        for hour in try contributions(venueID: record.venueId, checkIns: [seq], in: db) {
            try update.execute(
                arguments: StatementArguments(hour.sums.recalibrated(byDB: shift).databaseValues + [seq.databaseValue, hour.hour.weekday.databaseValue, hour.hour.hour.databaseValue]))
        }
    }

    /// A check-in's kept samples per local hour, the rows its venue's cells are summed from.
    static func storeHours(_ hours: [LocalHour: CellSums], checkIn seq: Int64, venueID: String, in db: GRDB.Database) throws {
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO checkin_hour (checkin_seq, venue_id, weekday, hour, \(CellSums.columnList()))
                VALUES (?, ?, ?, ?, \(Array(repeating: "?", count: CellSums.columns.count).joined(separator: ", ")))
                """)
        for (hour, sums) in hours {
            try insert.execute(
                arguments: StatementArguments([seq.databaseValue, venueID.databaseValue, hour.weekday.databaseValue, hour.hour.databaseValue] + sums.databaseValues))
        }
    }
}
