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
        try await connection.query(
            "UPDATE device SET last_seen_at = \(now) WHERE id = \(device) AND last_seen_at <= \(now.addingTimeInterval(-Device.lastSeenResolution))",
            logger: logger)
    }

    static func alias(of id: String, on connection: PostgresConnection, logger: Logger) async throws -> String? {
        try await connection.query("SELECT venue_id FROM venue_alias WHERE id = \(id)", logger: logger).decode(String.self).first { _ in true }
    }

    /// A venue's row; `locking` takes its row lock until the transaction ends, which orders every
    /// analysis of the venue's check-ins across servers.
    static func venueRow(_ id: String, locking: Bool, on connection: PostgresConnection, logger: Logger) async throws -> PostgresVenueRow? {
        let lock = locking ? "FOR UPDATE" : ""
        return try await connection.query(
            "SELECT id, name, latitude, longitude, timezone, kind, owner_device_id FROM venue WHERE id = \(id) \(unescaped: lock)", logger: logger
        ).decode((String, String, Double, Double, String, VenueKind?, UUID?).self).first { _ in true }.map {
            PostgresVenueRow(id: $0.0, venue: VenueUpsert(name: $0.1, latitude: $0.2, longitude: $0.3, timezone: $0.4, kind: $0.5), owner: $0.6)
        }
    }

    static func storedCheckIn(id: UUID, on connection: PostgresConnection, logger: Logger) async throws -> PostgresCheckInRow? {
        try await connection.query(
            "SELECT content_hash, device_id, venue_id, samples, dropped_samples, level_db, status FROM checkin WHERE id = \(id)", logger: logger
        ).decode((Data, UUID, String, Int, Int, Double?, CheckInStatus).self).first { _ in true }.map {
            PostgresCheckInRow(
                contentHash: $0.0, device: $0.1,
                stored: StoredCheckIn(id: id, venueID: $0.2, samples: $0.3, droppedSamples: $0.4, levelDB: $0.5, status: $0.6))
        }
    }

    /// The calibration the server applies to a device's check-ins that bring none: its model's
    /// offset from the calibration table, else the store's default.
    func serverCalibration(forDevice device: UUID, on connection: PostgresConnection) async throws -> Double {
        try await connection.query(
            "SELECT c.offset_db FROM calibration c JOIN device d ON d.model = c.model WHERE d.id = \(device)", logger: logger
        ).decode(Double.self).first { _ in true } ?? defaultCalibrationDB
    }

    static func storeHours(
        _ hours: [LocalHour: CheckInAnalysis.HourShare], checkIn seq: Int64, venueID: String, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let rows = hours.sorted { $0.key < $1.key }
        let details = rows.map(\.value.details)
        let spreads = rows.map(\.value.spread), sounds = rows.map(\.value.sounds)
        try await connection.query(
            """
            INSERT INTO checkin_hour (checkin_seq, venue_id, weekday, hour, samples, energy, \(unescaped: sumColumns))
            SELECT \(seq), \(venueID), * FROM unnest(\(rows.map { $0.key.weekday }), \(rows.map { $0.key.hour }), \(rows.map { $0.value.samples }), \(rows.map { $0.value.energy }),
                \(details.map(\.samples)), \(details.map(\.c)), \(details.map { $0.octaves[0] }), \(details.map { $0.octaves[1] }), \(details.map { $0.octaves[2] }), \(details.map { $0.octaves[3] }),
                \(spreads.map(\.levels.stored)), \(spreads.map(\.fastMaxima.stored)), \(sounds.map(\.classified)), \(sounds.map(\.speech)), \(sounds.map(\.music)))
            """, logger: logger)
    }

    /// A check-in's loud events, an unclassified one's class travelling as an empty text.
    static func storeEvents(_ events: [LoudEvent], checkIn seq: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        guard !events.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO event (checkin_seq, t, peak, duration_s, class)
            SELECT \(seq), t, peak, duration_s, NULLIF(class, '')
            FROM unnest(\(events.map(\.t)), \(events.map(\.peak)), \(events.map(\.durationS)), \(events.map { $0.sound?.rawValue ?? "" }))
                AS u(t, peak, duration_s, class)
            """, logger: logger)
    }

    /// A check-in's loud events in time order.
    static func events(of seq: Int64, on connection: PostgresConnection, logger: Logger) async throws -> [LoudEvent] {
        try await connection.query("SELECT t, peak, duration_s, class FROM event WHERE checkin_seq = \(seq) ORDER BY t", logger: logger)
            .decode((Double, Double, Double, String?).self).reduce(into: [LoudEvent]()) {
                $0.append(LoudEvent(t: $1.0, peak: $1.1, durationS: $1.2, sound: $1.3.flatMap(SoundClasses.Dominant.init)))
            }
    }

    /// The details' columns of `sample`, in the order of `LevelDetails`' levels.

    /// The columns of `DetailEnergies`, `LevelSpread` and `SoundCounts` in `checkin_hour` and `loudness`.
    static let sumColumnNames = DetailEnergies.columns + LevelSpread.columns + SoundCounts.columns
    static let sumColumns = sumColumnNames.joined(separator: ", ")

    /// A venue's check-ins as the status rule sees them: all, or those with one home hour.
    static func statusCandidates(venueID: String, homeHour: Int? = nil, on connection: PostgresConnection, logger: Logger) async throws -> [StatusCandidate<Int64>] {
        var candidates: [StatusCandidate<Int64>] = []
        for try await (seq, kept, level, weekday, hour, status, marked, banned) in try await connection.query(
            """
            SELECT c.seq, c.samples - c.dropped_samples, c.level_db, c.home_weekday, c.home_hour, c.status, c.marked_outlier, d.banned
            FROM checkin c JOIN device d ON d.id = c.device_id
            WHERE c.venue_id = \(venueID) AND (\(homeHour)::smallint IS NULL OR c.home_hour = \(homeHour))
            """, logger: logger
        ).decode((Int64, Int, Double?, Int, Int, CheckInStatus, Bool, Bool).self) {
            candidates.append(
                StatusCandidate(
                    key: seq, keptSamples: kept, levelDB: level, home: LocalHour(weekday: weekday, hour: hour), status: status, markedOutlier: marked,
                    deviceBanned: banned))
        }
        return candidates
    }

    /// The per-hour sums of a venue's check-ins (or of some of them), with what decides whether they count.
    static func contributions(venueID: String, checkIns: [Int64]? = nil, on connection: PostgresConnection, logger: Logger) async throws -> [HourContribution<Int64>] {
        var contributions: [HourContribution<Int64>] = []
        for try await (seq, weekday, hour, samples, energy, status, banned, detailSamples, c, o500, o1000, o2000, o4000, levels, fastMaxima, classified, speech, music)
            in try await connection.query(
            """
            SELECT h.checkin_seq, h.weekday, h.hour, h.samples, h.energy, c.status, d.banned, \(unescaped: sumColumnNames.map { "h.\($0)" }.joined(separator: ", "))
            FROM checkin_hour h JOIN checkin c ON c.seq = h.checkin_seq JOIN device d ON d.id = c.device_id
            WHERE h.venue_id = \(venueID) AND (\(checkIns)::bigint[] IS NULL OR h.checkin_seq = ANY(\(checkIns)))
            """, logger: logger
        ).decode((Int64, Int, Int, Int, Double, CheckInStatus, Bool, Int, Double, Double, Double, Double, Double, String?, String?, Int, Int, Int).self) {
            let details = DetailEnergies(samples: detailSamples, c: c, octaves: [o500, o1000, o2000, o4000])
            contributions.append(
                HourContribution(
                    checkIn: seq, hour: LocalHour(weekday: weekday, hour: hour),
                    share: CheckInAnalysis.HourShare(
                        samples: samples, energy: energy, details: details, spread: try LevelSpread(stored: [levels, fastMaxima]),
                        sounds: SoundCounts(classified: classified, speech: speech, music: music)),
                    status: status, deviceBanned: banned))
        }
        return contributions
    }

    /// A venue's cells, or those of `touching`'s weekdays and hours (the cells a check-in adds to
    /// cross to themselves alone: four for a check-in within one hour).
    static func cells(of venueID: String, touching: [LocalHour]? = nil, on connection: PostgresConnection, logger: Logger) async throws -> [LoudnessAggregate] {
        var cells: [LoudnessAggregate] = []
        let weekdays = touching.map { Array(Set($0.map(\.weekday))) }, hours = touching.map { Array(Set($0.map(\.hour))) }
        for try await (weekday, hour, checkins, samples, energy, detailSamples, c, o500, o1000, o2000, o4000, levels, fastMaxima, classified, speech, music)
            in try await connection.query(
            """
            SELECT weekday, hour, checkins, samples, energy, \(unescaped: sumColumns) FROM loudness
            WHERE venue_id = \(venueID) AND (\(weekdays)::bigint[] IS NULL OR (weekday = ANY(\(weekdays)) AND hour = ANY(\(hours))))
            """, logger: logger
        ).decode((Int, Int, Int, Int, Double, Int, Double, Double, Double, Double, Double, String?, String?, Int, Int, Int).self) {
            cells.append(
                LoudnessAggregate(
                    weekday: weekday, hour: hour, checkins: checkins, samples: samples, energy: energy,
                    details: DetailEnergies(samples: detailSamples, c: c, octaves: [o500, o1000, o2000, o4000]), spread: try LevelSpread(stored: [levels, fastMaxima]),
                    sounds: SoundCounts(classified: classified, speech: speech, music: music)))
        }
        return cells
    }

    /// Applies the status rule to a venue's check-ins (those with one home hour, or all), saves the
    /// statuses that change, and brings the venue's cells in step; `joined` is a check-in stored
    /// in this transaction. With `sumAgain`, the cells are summed from scratch whatever changed.
    /// Returns the statuses it changed.
    @discardableResult
    static func decide(
        venueID: String, homeHour: Int? = nil, joined: (Int64, CheckInStatus)? = nil, sumAgain: Bool = false, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> [StatusChange<Int64>] {
        let changes = Analysis.statusChanges(among: try await statusCandidates(venueID: venueID, homeHour: homeHour, on: connection, logger: logger))
        if !changes.isEmpty {
            try await connection.query(
                """
                UPDATE checkin c SET status = u.status FROM unnest(\(changes.map(\.key)), \(changes.map(\.to.rawValue))) AS u(seq, status)
                WHERE c.seq = u.seq
                """, logger: logger)
            for change in changes where change.to == .outlier { ServerMetrics.outliersDecided.increment() }
        }
        let cells: [LoudnessAggregate]
        switch sumAgain ? .sumAgain : Analysis.cellUpdate(after: changes, joined: joined.map { (key: $0.0, status: $0.1) }) {
        case .add(let checkIns):
            guard !checkIns.isEmpty else { return changes }
            // What the check-ins that start to count add (their cells as if they were all there is)
            // to the stored cells they touch: histograms add bin by bin, which SQL cannot do. The
            // venue's row lock, taken by every writer, keeps another server from writing in between.
            let additions = Analysis.cells(from: try await contributions(venueID: venueID, checkIns: Array(checkIns), on: connection, logger: logger))
            var totals = additions
            for stored in try await Self.cells(of: venueID, touching: Array(additions.keys), on: connection, logger: logger) {
                if let addition = additions[stored.cell] { totals[stored.cell] = stored.adding(addition) }
            }
            cells = totals.values.sorted { $0.cell < $1.cell }
        case .sumAgain:
            try await connection.query("DELETE FROM loudness WHERE venue_id = \(venueID)", logger: logger)
            cells = Analysis.cells(from: try await contributions(venueID: venueID, on: connection, logger: logger)).values.sorted { $0.cell < $1.cell }
        }
        if !cells.isEmpty { try await write(cells, of: venueID, on: connection, logger: logger) }
        return changes
    }

    /// Writes a venue's cells as they now are, over those stored.
    private static func write(_ cells: [LoudnessAggregate], of venueID: String, on connection: PostgresConnection, logger: Logger) async throws {
        let details = cells.map(\.details)
        let spreads = cells.map(\.spread), sounds = cells.map(\.sounds)
        let columns = ["checkins", "samples", "energy"] + sumColumnNames
        try await connection.query(
            """
            INSERT INTO loudness (venue_id, weekday, hour, \(unescaped: columns.joined(separator: ", ")))
            SELECT \(venueID), * FROM unnest(\(cells.map(\.weekday)), \(cells.map(\.hour)), \(cells.map(\.checkins)), \(cells.map(\.samples)), \(cells.map(\.energy)),
                \(details.map(\.samples)), \(details.map(\.c)), \(details.map { $0.octaves[0] }), \(details.map { $0.octaves[1] }), \(details.map { $0.octaves[2] }), \(details.map { $0.octaves[3] }),
                \(spreads.map(\.levels.stored)), \(spreads.map(\.fastMaxima.stored)), \(sounds.map(\.classified)), \(sounds.map(\.speech)), \(sounds.map(\.music)))
            ON CONFLICT (venue_id, weekday, hour) DO UPDATE SET \(unescaped: columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
            """, logger: logger)
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
