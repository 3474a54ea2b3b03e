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

    /// The per-hour sums of a venue's check-ins (or of some of them), with what decides whether they count.
    static func contributions(venueID: String, checkIns: [Int64]? = nil, on connection: PostgresConnection, logger: Logger) async throws -> [HourContribution<Int64>] {
        try await connection.execute(Statement.Contributions(venueID: venueID, checkIns: checkIns), logger: logger).reduce(into: []) { $0.append($1) }
    }

    /// The per-hour sums of every check-in of a venue in some cells of one weekday and hour.
    static func contributions(
        venueID: String, inCells cells: Set<LocalHour>, on connection: PostgresConnection, logger: Logger
    ) async throws -> [HourContribution<Int64>] {
        try await connection.execute(Statement.ContributionsInCells(venueID: venueID, cells: Array(cells)), logger: logger).reduce(into: []) { $0.append($1) }
    }

    /// A venue's cells that `selection` selects.
    static func cells(of venueID: String, selected selection: CellSelection, on connection: PostgresConnection, logger: Logger) async throws -> [LoudnessAggregate] {
        try await connection.execute(Statement.SelectedCells(venueID: venueID, selection: selection), logger: logger).reduce(into: []) { $0.append($1) }
    }

    /// Every cell of a venue.
    static func cells(of venueID: String, on connection: PostgresConnection, logger: Logger) async throws -> [LoudnessAggregate] {
        try await connection.execute(Statement.Cells(venueID: venueID), logger: logger).reduce(into: []) { $0.append($1) }
    }

    /// The local hours some check-ins' per-hour sums are in.
    static func hours(of checkIns: [Int64], on connection: PostgresConnection, logger: Logger) async throws -> Set<LocalHour> {
        try await connection.execute(Statement.CheckInHours(checkIns: checkIns), logger: logger).reduce(into: []) { $0.insert($1) }
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
        try await bringCells(of: venueID, in: sumAgain ? .sumAgain(nil) : Analysis.cellUpdate(after: changes), on: connection, logger: logger)
        return changes
    }

    /// Saves the statuses the rule changed (of any venues).
    static func save(_ changes: [StatusChange<Int64>], on connection: PostgresConnection, logger: Logger) async throws {
        guard !changes.isEmpty else { return }
        try await connection.run(Statement.UpdateStatuses(changes: changes), logger: logger)
        for change in changes where change.to == .outlier { ServerMetrics.outliersDecided.increment() }
    }

    /// Brings a venue's cells in step with `update`, reading what it needs: the per-hour sums of the
    /// check-ins that start to count, or those of the cells to sum again, and the cells stored.
    static func bringCells(of venueID: String, in update: CellUpdate<Int64>, on connection: PostgresConnection, logger: Logger) async throws {
        let writes: CellWrites
        switch update {
        case .add(let read, let known):
            guard !read.isEmpty || !known.isEmpty else { return }
            // The venue's row lock, taken by every writer, keeps another server from writing in between.
            let additions = Analysis.cells(
                from: known + (read.isEmpty ? [] : try await contributions(venueID: venueID, checkIns: Array(read), on: connection, logger: logger)))
            writes = Analysis.cellWrites(
                adding: additions, to: try await cells(of: venueID, selected: Analysis.storedCells(adding: additions.keys), on: connection, logger: logger))
        case .sumAgain(nil):
            writes = Analysis.cellWrites(summingAllFrom: try await contributions(venueID: venueID, on: connection, logger: logger))
        case .sumAgain(let changes?):
            let hourCells = try await hours(of: changes.map(\.key), on: connection, logger: logger)
            writes = Analysis.cellWrites(
                summingAgain: changes, from: try await contributions(venueID: venueID, inCells: hourCells, on: connection, logger: logger),
                stored: try await cells(of: venueID, selected: Analysis.storedCells(summingAgain: hourCells), on: connection, logger: logger))
        }
        try await write(writes, venueID: venueID, on: connection, logger: logger)
    }

    static func write(_ writes: CellWrites, venueID: String, on connection: PostgresConnection, logger: Logger) async throws {
        switch writes.deleted {
        case .none: break
        case .every: try await connection.query("DELETE FROM loudness WHERE venue_id = \(venueID)", logger: logger)
        case .cells(let cells) where cells.isEmpty: break
        case .cells(let cells):
            try await connection.query(
                """
                DELETE FROM loudness WHERE venue_id = \(venueID)
                AND (weekday, hour) IN (SELECT * FROM unnest(\(cells.map(\.weekday)), \(cells.map(\.hour))))
                """, logger: logger)
        }
        if !writes.written.isEmpty { try await connection.run(Statement.WriteCells(cells: writes.written.map { (venueID, $0) }), logger: logger) }
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
            "SELECT seq, started_at, calibration_db, samples_pruned_at IS NOT NULL FROM checkin WHERE venue_id = \(venueID)", logger: logger
        ).decode((Int64, Date, Double, Bool).self).reduce(into: [(Int64, Date, Double, Bool)]()) { $0.append($1) }
        for (seq, startedAt, calibration, pruned) in rows where !pruned {
            let analysis = CheckInAnalysis(
                samples: try await storedSamples(of: seq, on: connection, logger: logger)?.samples ?? [], startedAt: startedAt, calibrationDB: calibration, clock: clock)
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
