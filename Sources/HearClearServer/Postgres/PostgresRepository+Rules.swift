import Foundation
import HearClearAnalysis
import HearClearCore
import Logging
import PostgresNIO

/// A venue's row as the store reads it.
struct PostgresVenueRow: Sendable {
    var id: String
    var venue: VenueUpsert
    var owner: UUID?
    var timezone: String { venue.timezone }

    init(_ columns: PostgresRepository.Statement.VenueColumns) {
        id = columns.0
        venue = VenueUpsert(name: columns.1, latitude: columns.2, longitude: columns.3, timezone: columns.4, kind: columns.5)
        owner = columns.6
    }
}

/// The parts of a stored check-in that decide a retry from a conflict, and its receipt.
struct PostgresCheckInRow: Sendable {
    var contentHash: Data
    var device: UUID
    var stored: StoredCheckIn
}

// Fetching what the rules of `Analysis` need and saving what they decide: the same steps as the
// SQLite store's, in PostgreSQL's SQL.
extension PostgresRepository {
    static func touch(device: UUID, at now: Date, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run(Statement.Touch(device: device, now: now), logger: logger)
    }

    static func alias(of id: String, on connection: PostgresConnection, logger: Logger) async throws -> String? {
        try await connection.execute(Statement.Alias(id: id), logger: logger).first { _ in true }
    }

    /// A venue's row; `locking` takes its row lock until the transaction ends, which orders every
    /// analysis of the venue's check-ins across servers.
    static func venueRow(_ id: String, locking: Bool, on connection: PostgresConnection, logger: Logger) async throws -> PostgresVenueRow? {
        let row =
            locking
            ? try await connection.execute(Statement.LockedVenue(id: id), logger: logger).first { _ in true }
            : try await connection.execute(Statement.Venue(id: id), logger: logger).first { _ in true }
        return row.map(PostgresVenueRow.init)
    }

    /// Venues' rows by id, locked in id order until the transaction ends.
    static func lockedVenues(_ ids: Set<String>, on connection: PostgresConnection, logger: Logger) async throws -> [String: PostgresVenueRow] {
        guard !ids.isEmpty else { return [:] }
        return try await connection.execute(Statement.LockedVenues(ids: ids.sorted()), logger: logger).reduce(into: [:]) { $0[$1.0] = PostgresVenueRow($1) }
    }

    static func storedCheckIn(id: UUID, on connection: PostgresConnection, logger: Logger) async throws -> PostgresCheckInRow? {
        try await connection.execute(Statement.StoredCheckIn(id: id), logger: logger).first { _ in true }.map {
            PostgresCheckInRow(
                contentHash: $0.0, device: $0.1,
                stored: StoredCheckIn(id: id, venueID: $0.2, samples: $0.3, droppedSamples: $0.4, levelDB: $0.5, status: $0.6))
        }
    }

    static func storeHours(
        _ hours: [LocalHour: CellSums], checkIn seq: Int64, venueID: String, on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.run(Statement.InsertHours(checkIn: seq, venueID: venueID, hours: hours), logger: logger)
    }

    /// A check-in's loud events in time order.
    static func events(of seq: Int64, on connection: PostgresConnection, logger: Logger) async throws -> [LoudEvent] {
        try await connection.query("SELECT t, peak, duration_s, class FROM event WHERE checkin_seq = \(seq) ORDER BY t", logger: logger)
            .decode((Double, Double, Double, String?).self).reduce(into: [LoudEvent]()) {
                $0.append(LoudEvent(t: $1.0, peak: $1.1, durationS: $1.2, sound: $1.3.flatMap(SoundClasses.Dominant.init)))
            }
    }

    /// A venue's check-ins as the status rule sees them: all, or those with one home hour.
    static func statusCandidates(venueID: String, homeHour: Int? = nil, on connection: PostgresConnection, logger: Logger) async throws -> [StatusCandidate<Int64>] {
        try await connection.execute(Statement.StatusCandidates(venueID: venueID, homeHour: homeHour), logger: logger).reduce(into: []) { $0.append($1) }
    }

    /// The per-hour sums of a venue's check-ins, with what decides whether they count.
    static func contributions(venueID: String, on connection: PostgresConnection, logger: Logger) async throws -> [HourContribution<Int64>] {
        try await connection.execute(Statement.Contributions(venueID: venueID), logger: logger).reduce(into: []) { $0.append($1) }
    }

    /// The per-hour sums of some check-ins.
    static func contributions(of checkIns: [Int64], on connection: PostgresConnection, logger: Logger) async throws -> [HourContribution<Int64>] {
        guard !checkIns.isEmpty else { return [] }
        return try await connection.execute(Statement.CheckInContributions(checkIns: checkIns), logger: logger).reduce(into: []) { $0.append($1) }
    }

    /// The per-hour sums of every check-in in some venues' cells of one weekday and hour, by venue.
    static func contributions(
        inCells cells: [(venueID: String, cell: LocalHour)], on connection: PostgresConnection, logger: Logger
    ) async throws -> [String: [HourContribution<Int64>]] {
        guard !cells.isEmpty else { return [:] }
        return try await connection.execute(Statement.ContributionsInCells(cells: cells), logger: logger).reduce(into: [:]) {
            $0[$1.venueID, default: []].append($1.contribution)
        }
    }

    /// Some venues' cells, by venue (a cell not stored is not there).
    static func cells(at cells: [(venueID: String, cell: LocalHour)], on connection: PostgresConnection, logger: Logger) async throws -> [String: [LoudnessAggregate]] {
        guard !cells.isEmpty else { return [:] }
        return try await connection.execute(Statement.CellsAt(cells: cells), logger: logger).reduce(into: [:]) { $0[$1.venueID, default: []].append($1.cell) }
    }

    /// Every cell of a venue.
    static func cells(of venueID: String, on connection: PostgresConnection, logger: Logger) async throws -> [LoudnessAggregate] {
        try await connection.execute(Statement.Cells(venueID: venueID), logger: logger).reduce(into: []) { $0.append($1) }
    }

    /// Applies the status rule to a venue's check-ins (those with one home hour, or all), saves the
    /// statuses that change, and brings the venue's cells in step. With `sumAgain`, the cells are
    /// summed from scratch whatever changed. Returns the statuses it changed.
    @discardableResult
    static func decide(
        venueID: String, homeHour: Int? = nil, sumAgain: Bool = false, on connection: PostgresConnection, logger: Logger
    ) async throws -> [StatusChange<Int64>] {
        let changes = Analysis.statusChanges(among: try await statusCandidates(venueID: venueID, homeHour: homeHour, on: connection, logger: logger))
        try await save(changes, on: connection, logger: logger)
        try await bringCells([venueID: sumAgain ? .sumAgain(nil) : Analysis.cellUpdate(after: changes)], on: connection, logger: logger)
        return changes
    }

    /// Saves the statuses the rule changed (of any venues).
    static func save(_ changes: [StatusChange<Int64>], on connection: PostgresConnection, logger: Logger) async throws {
        guard !changes.isEmpty else { return }
        try await connection.run(Statement.UpdateStatuses(changes: changes), logger: logger)
        for change in changes where change.to == .outlier { ServerMetrics.outliersDecided.increment() }
    }

    /// Brings venues' cells in step with their updates, reading what each needs — the per-hour sums
    /// of the check-ins that start to count, or of the cells to sum again, and the cells stored —
    /// and writing what changes, each step one statement for all the venues: a group of uploads
    /// makes as many round trips in its transaction for twenty venues as for one
    /// (docs/profiling.md). The venues' row locks, taken by every writer, keep another server from
    /// writing in between.
    static func bringCells(_ updates: [String: CellUpdate<Int64>], on connection: PostgresConnection, logger: Logger) async throws {
        var writes: [String: CellWrites] = [:]
        // First the per-hour sums of the check-ins that start to count, and of those whose change
        // sums cells again, for the hours they are in.
        var venueOf: [Int64: String] = [:]
        for (venueID, update) in updates {
            switch update {
            case .add(let read, _): for seq in read { venueOf[seq] = venueID }
            case .sumAgain(let changes?): for change in changes { venueOf[change.key] = venueID }
            case .sumAgain(nil):
                writes[venueID] = Analysis.cellWrites(summingAllFrom: try await contributions(venueID: venueID, on: connection, logger: logger))
            }
        }
        var read: [String: [HourContribution<Int64>]] = [:]
        for contribution in try await contributions(of: Array(venueOf.keys), on: connection, logger: logger) {
            if let venueID = venueOf[contribution.checkIn] { read[venueID, default: []].append(contribution) }
        }

        var additions: [String: [LocalHour: LoudnessAggregate]] = [:], summing: [String: (changes: [StatusChange<Int64>], hourCells: Set<LocalHour>)] = [:]
        for (venueID, update) in updates {
            switch update {
            case .add(_, let known): additions[venueID] = Analysis.cells(from: known + (read[venueID] ?? []))
            case .sumAgain(let changes?): summing[venueID] = (changes, Set((read[venueID] ?? []).map(\.hour)))
            case .sumAgain(nil): break
            }
        }
        let inCells = try await contributions(
            inCells: summing.flatMap { venueID, sum in sum.hourCells.map { (venueID: venueID, cell: $0) } }, on: connection, logger: logger)
        // A cell is added to where it is stored, so those are the cells read for an addition.
        let stored = try await cells(
            at: additions.flatMap { venueID, cells in cells.keys.map { (venueID: venueID, cell: $0) } }
                + summing.flatMap { venueID, sum in Analysis.storedCells(shifting: sum.hourCells).cells.map { (venueID: venueID, cell: $0) } },
            on: connection, logger: logger)
        for (venueID, cells) in additions { writes[venueID] = Analysis.cellWrites(adding: cells, to: stored[venueID] ?? []) }
        for (venueID, sum) in summing {
            writes[venueID] = Analysis.cellWrites(summingAgain: sum.changes, from: inCells[venueID] ?? [], stored: stored[venueID] ?? [])
        }
        // Rarely, a venue whose rounding would grow too large: the parts of its cells, for all such venues at once.
        let fromParts = summing.filter { venueID, _ in writes[venueID] == nil }
        if !fromParts.isEmpty {
            let parts = try await cells(
                at: fromParts.flatMap { venueID, sum in Analysis.storedCells(summingAgain: sum.hourCells).cells.map { (venueID: venueID, cell: $0) } },
                on: connection, logger: logger)
            for (venueID, sum) in fromParts {
                writes[venueID] = Analysis.cellWrites(summingAgain: sum.changes, from: inCells[venueID] ?? [], storedWithParts: parts[venueID] ?? [])
            }
        }
        try await write(writes, on: connection, logger: logger)
    }

    /// Writes venues' cells, one statement for each kind of write.
    static func write(_ writes: [String: CellWrites], on connection: PostgresConnection, logger: Logger) async throws {
        var everyCell: [String] = [], deleted: [(venueID: String, cell: LocalHour)] = [], written: [(venueID: String, cell: LoudnessAggregate)] = []
        // In venue order, as the venues were locked.
        for (venueID, writes) in writes.sorted(by: { $0.key < $1.key }) {
            switch writes.deleted {
            case .none: break
            case .every: everyCell.append(venueID)
            case .cells(let cells): deleted += cells.map { (venueID: venueID, cell: $0) }
            }
            written += writes.written.map { (venueID: venueID, cell: $0) }
        }
        if !everyCell.isEmpty { try await connection.query("DELETE FROM loudness WHERE venue_id = ANY(\(everyCell))", logger: logger) }
        if !deleted.isEmpty { try await connection.run(Statement.DeleteCells(cells: deleted), logger: logger) }
        if !written.isEmpty { try await connection.run(Statement.WriteCells(cells: written), logger: logger) }
    }

    /// Decides every status of a venue again and sums its cells from scratch.
    static func refreshVenue(_ venueID: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await decide(venueID: venueID, sumAgain: true, on: connection, logger: logger)
    }

    /// A check-in's samples with their dropped flags; nil once retention dropped them (or no such check-in).
    static func storedSamples(of seq: Int64, on connection: PostgresConnection, logger: Logger) async throws -> SampleColumns? {
        guard
            let (id, interval, blob) = try await connection.query(
                "SELECT id, interval_s, sample_columns FROM checkin WHERE seq = \(seq)", logger: logger
            ).decode((UUID, Double, Data?).self).first(where: { _ in true })
        else { return nil }
        return try SampleColumns.stored(blob, intervalS: interval, checkIn: id.wireString)
    }

    /// Places a venue's check-ins in their local hours again and recomputes their levels, from
    /// their samples and each one's recorded calibration (after a new time zone, a calibration
    /// change or a merge). Pruned check-ins keep their hours; a new calibration scales their energies.
    /// Statuses and cells are left to `refreshVenue`.
    static func reanalyse(venueID: String, on connection: PostgresConnection, logger: Logger) async throws {
        guard let venue = try await venueRow(venueID, locking: false, on: connection, logger: logger),
            let clock = VenueClock(timeZoneIdentifier: venue.timezone)
        else { return }
        let rows = try await connection.query(
            "SELECT seq, started_at, interval_s, calibration_db, samples_pruned_at IS NOT NULL FROM checkin WHERE venue_id = \(venueID)", logger: logger
        ).decode((Int64, Date, Double, Double, Bool).self).reduce(into: [(Int64, Date, Double, Double, Bool)]()) { $0.append($1) }
        for (seq, startedAt, interval, calibration, pruned) in rows where !pruned {
            let analysis = CheckInAnalysis(
                samples: try await storedSamples(of: seq, on: connection, logger: logger)?.samples ?? [], startedAt: startedAt, intervalS: interval,
                calibrationDB: calibration, clock: clock)
            try await connection.query("DELETE FROM checkin_hour WHERE checkin_seq = \(seq)", logger: logger)
            try await storeHours(analysis.hours, checkIn: seq, venueID: venueID, on: connection, logger: logger)
            try await connection.query(
                """
                UPDATE checkin SET level_db = \(analysis.levelDB), home_weekday = \(analysis.homeHour.weekday), home_hour = \(analysis.homeHour.hour)
                WHERE seq = \(seq)
                """, logger: logger)
        }
    }
}
