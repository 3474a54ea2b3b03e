import Foundation
import HearClearAnalysis
import HearClearCore
import Logging
import PostgresNIO

extension PostgresRepository: AdminStore {
    public func totals() async throws -> AdminTotals {
        try await read { [logger] connection in try await Self.totals(connection, logger: logger) }
    }

    public func dashboard(recent: Int, days: Int, until now: Date) async throws -> AdminDashboard {
        let today = (now.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400
        let first = today - Double(days - 1) * 86_400
        return try await snapshot { [logger] connection in
            var byDay: [Double: Int] = [:]
            for try await (day, count) in try await connection.query(
                """
                SELECT floor(extract(epoch FROM received_at) / 86400)::bigint * 86400, COUNT(*) FROM checkin
                WHERE received_at >= \(Date(timeIntervalSince1970: first)) GROUP BY 1
                """, logger: logger
            ).decode((Int64, Int).self) { byDay[Double(day)] = count }
            func checkIns(leftOut: Bool) async throws -> [CheckInListing] {
                try await Self.checkInListings(
                    connection, logger: logger,
                    """
                    \(unescaped: Self.checkInListingSelect) WHERE NOT \(leftOut) OR c.status <> \(CheckInStatus.accepted)
                    ORDER BY c.received_at DESC, c.seq DESC LIMIT \(recent)
                    """)
            }
            return AdminDashboard(
                totals: try await Self.totals(connection, logger: logger),
                recentVenues: try await Self.venueListings(
                    connection, logger: logger, "\(unescaped: Self.venueListingSelect) ORDER BY v.created_at DESC, v.id LIMIT \(recent)"),
                recentDevices: try await Self.deviceListings(
                    connection, logger: logger, "\(unescaped: Self.deviceListingSelect) ORDER BY d.created_at DESC LIMIT \(recent)"),
                recentCheckIns: try await checkIns(leftOut: false), leftOutCheckIns: try await checkIns(leftOut: true),
                perDay: (0..<days).map { index in
                    let day = first + Double(index) * 86_400
                    return (Date(timeIntervalSince1970: day), byDay[day] ?? 0)
                })
        }
    }

    static func totals(_ connection: PostgresConnection, logger: Logger) async throws -> AdminTotals {
        try await connection.query(
            """
            SELECT (SELECT COUNT(*) FROM venue), (SELECT COUNT(*) FROM device), COUNT(*), COALESCE(SUM(samples), 0),
                   COALESCE(SUM(dropped_samples), 0), COUNT(*) FILTER (WHERE status = \(CheckInStatus.outlier)),
                   COUNT(*) FILTER (WHERE status = \(CheckInStatus.tooShort))
            FROM checkin
            """, logger: logger
        ).decode((Int, Int, Int, Int, Int, Int, Int).self).first { _ in true }.map {
            AdminTotals(venues: $0.0, devices: $0.1, checkIns: $0.2, samples: $0.3, droppedSamples: $0.4, outlierCheckIns: $0.5, tooShortCheckIns: $0.6)
        } ?? AdminTotals()
    }

    public func venues(search: String?, offset: Int, limit: Int) async throws -> (venues: [VenueListing], total: Int) {
        let idPattern = VenueQuery.likePattern(containing: search)
        let namePatterns = VenueQuery.likePatterns(eachWordOf: search)
        return try await read { [logger] connection in
            let total = try await connection.query(
                "SELECT COUNT(*) FROM venue v WHERE (\(idPattern)::text IS NULL OR \(unescaped: VenueQuery.nameFoldedColumn) LIKE ALL (\(namePatterns)::text[]) OR v.id ILIKE \(idPattern) ESCAPE '\\')",
                logger: logger
            ).decode(Int.self).first { _ in true } ?? 0
            let venues = try await Self.venueListings(
                connection, logger: logger,
                """
                \(unescaped: Self.venueListingSelect)
                WHERE (\(idPattern)::text IS NULL OR \(unescaped: VenueQuery.nameFoldedColumn) LIKE ALL (\(namePatterns)::text[]) OR v.id ILIKE \(idPattern) ESCAPE '\\')
                ORDER BY latest DESC NULLS LAST, v.name_folded COLLATE "C", v.id LIMIT \(limit) OFFSET \(offset)
                """)
            return (venues, total)
        }
    }

    public func loudestVenues(in window: LocalWindow, offset: Int, limit: Int) async throws -> (venues: [(venue: VenueListing, levelDB: Double)], total: Int) {
        // Per weekday-hour cells when a weekday is chosen, else the every-weekday spans (which count a check-in once).
        let weekday = window.weekday ?? LoudnessAggregate.everyWeekday
        let (low, high) = (window.hours.lowerBound, window.hours.upperBound)
        let result = try await read { [logger] connection in
            let total = try await connection.query(
                "SELECT COUNT(DISTINCT venue_id) FROM loudness WHERE weekday = \(weekday) AND hour BETWEEN \(low) AND \(high)", logger: logger
            ).decode(Int.self).first { _ in true } ?? 0
            let rows = try await connection.query(
                """
                SELECT venue_id, SUM(samples)::bigint, SUM(energy) FROM loudness
                WHERE weekday = \(weekday) AND hour BETWEEN \(low) AND \(high)
                GROUP BY venue_id ORDER BY SUM(energy) / SUM(samples) DESC, venue_id LIMIT \(limit) OFFSET \(offset)
                """, logger: logger
            ).decode((String, Int, Double).self).reduce(into: [(String, Int, Double)]()) { $0.append($1) }
            let listings = try await Self.venueListings(connection, logger: logger, "\(unescaped: Self.venueListingSelect) WHERE v.id = ANY(\(rows.map(\.0)))")
            let byID = Dictionary(listings.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let venues = rows.compactMap { row -> (VenueListing, Double)? in
                byID[row.0].map { ($0, Level.level(energy: row.2 / Double(row.1))) }
            }
            return AdminPage(venues: venues, total: total)
        }
        return (result.venues, result.total)
    }

    public func venueDetail(id: String) async throws -> VenueDetail? {
        try await read { [logger] connection -> VenueDetail? in
            guard let venue = try await Self.venueRow(id, locking: false, on: connection, logger: logger) else { return nil }
            let decoder = JSONDecoder()
            var history: [VenueChange] = []
            for try await (changedAt, actor, action, before, after) in try await connection.query(
                "SELECT changed_at, actor, action, before, after FROM venue_change WHERE venue_id = \(id) ORDER BY seq DESC", logger: logger
            ).decode((Date, String, VenueChangeAction, String?, String?).self) {
                history.append(
                    VenueChange(
                        changedAt: changedAt, actor: actor, action: action,
                        before: before.flatMap { try? decoder.decode(VenueSnapshot.self, from: Data($0.utf8)) },
                        after: after.flatMap { try? decoder.decode(VenueSnapshot.self, from: Data($0.utf8)) }))
            }
            return VenueDetail(
                id: id, venue: venue.venue, owner: venue.owner, aggregates: try await Self.cells(of: id, on: connection, logger: logger),
                checkIns: try await Self.checkInListings(
                    connection, logger: logger, "\(unescaped: Self.checkInListingSelect) WHERE c.venue_id = \(id) ORDER BY c.started_at DESC, c.seq DESC"),
                history: history)
        }
    }

    public func checkInDetail(id: UUID) async throws -> CheckInDetail? {
        try await snapshot { [logger] connection -> CheckInDetail? in
            guard let listing = try await Self.checkInListings(connection, logger: logger, "\(unescaped: Self.checkInListingSelect) WHERE c.id = \(id)").first,
                let (seq, interval, calibration, source, timezone, venue, homeHour) = try await connection.query(
                    """
                    SELECT c.seq, c.interval_s, c.calibration_db, c.calibration_source, v.timezone, c.venue_id, c.home_hour
                    FROM checkin c JOIN venue v ON v.id = c.venue_id WHERE c.id = \(id)
                    """, logger: logger
                ).decode((Int64, Double, Double, CalibrationSource, String, String, Int).self).first(where: { _ in true })
            else { return nil }
            let candidates = try await Self.statusCandidates(venueID: venue, homeHour: homeHour, on: connection, logger: logger)
            let events = try await Self.events(of: seq, on: connection, logger: logger)
            return CheckInDetail(
                listing: listing, timezone: timezone, intervalS: interval, calibrationDB: calibration, calibrationSource: source,
                samples: try await Self.storedSamples(of: seq, on: connection, logger: logger).map { zip($0.samples, $0.dropped).map { ($0, $1) } } ?? [], events: events,
                verdict: candidates.first { $0.key == seq }.flatMap { Analysis.outlierVerdict(for: $0, among: candidates) })
        }
    }

    public func devices() async throws -> [DeviceListing] {
        try await read { [logger] connection in
            try await Self.deviceListings(connection, logger: logger, "\(unescaped: Self.deviceListingSelect) ORDER BY d.last_seen_at DESC")
        }
    }

    public func calibrations() async throws -> CalibrationTable {
        try await read { [logger] connection in
            let offsets = try await connection.query("SELECT model, offset_db FROM calibration ORDER BY model", logger: logger)
                .decode((String, Double).self).reduce(into: [CalibrationTable.ModelOffset]()) { $0.append(.init(model: $1.0, offsetDB: $1.1)) }
            let models = try await connection.query("SELECT DISTINCT model FROM device ORDER BY model", logger: logger)
                .decode(String.self).reduce(into: [String]()) { $0.append($1) }
            let own = try await connection.query(
                """
                SELECT c.device_id, d.model, c.calibration_db
                FROM (SELECT device_id, calibration_db, calibration_source, received_at FROM checkin ORDER BY received_at DESC LIMIT \(CalibrationTable.window)) c
                JOIN device d ON d.id = c.device_id
                WHERE c.calibration_source = \(CalibrationSource.checkIn) AND NOT d.banned
                ORDER BY c.received_at DESC
                """, logger: logger
            ).decode((UUID, String, Double).self).reduce(into: [CalibrationTable.OwnCalibration]()) {
                $0.append(.init(device: $1.0, model: $1.1, calibrationDB: $1.2))
            }
            return CalibrationTable(offsets: offsets, models: models, own: own)
        }
    }

    // MARK: Changes

    public func setOutlierMark(checkIn: UUID, marked: Bool) async throws -> Bool {
        try await transaction { [logger] connection, announcement -> Bool in
            guard
                let (venue, hour) = try await connection.query("SELECT venue_id, home_hour FROM checkin WHERE id = \(checkIn)", logger: logger)
                    .decode((String, Int).self).first(where: { _ in true })
            else { return false }
            _ = try await Self.venueRow(venue, locking: true, on: connection, logger: logger)
            try await connection.query("UPDATE checkin SET marked_outlier = \(marked) WHERE id = \(checkIn)", logger: logger)
            // The status rule gives the mark's status, and may change the others at its hour.
            try await Self.decide(venueID: venue, homeHour: hour, on: connection, logger: logger)
            try await announcement.venues([venue])
            return true
        }
    }

    public func setBanned(device: UUID, banned: Bool) async throws -> Bool {
        try await transaction { [logger] connection, announcement -> Bool in
            guard try await connection.query("UPDATE device SET banned = \(banned) WHERE id = \(device) RETURNING 1", logger: logger)
                .decode(Int.self).first(where: { _ in true }) != nil
            else { return false }
            let venues = try await connection.query("SELECT DISTINCT venue_id FROM checkin WHERE device_id = \(device) ORDER BY venue_id", logger: logger)
                .decode(String.self).reduce(into: [String]()) { $0.append($1) }
            for venue in venues {
                _ = try await Self.venueRow(venue, locking: true, on: connection, logger: logger)
                try await Self.refreshVenue(venue, on: connection, logger: logger)
            }
            try await announcement.venues(venues)
            return true
        }
    }

    public func setCalibration(model: String, offsetDB: Double?, at now: Date) async throws {
        let offset = offsetDB ?? defaultCalibrationDB
        try await transaction { [logger] connection, announcement in
            if let offsetDB {
                try await connection.query(
                    """
                    INSERT INTO calibration (model, offset_db, updated_at) VALUES (\(model), \(offsetDB), \(now))
                    ON CONFLICT (model) DO UPDATE SET offset_db = excluded.offset_db, updated_at = excluded.updated_at
                    """, logger: logger)
            } else {
                try await connection.query("DELETE FROM calibration WHERE model = \(model)", logger: logger)
            }
            let venues = try await connection.query(
                """
                SELECT DISTINCT c.venue_id FROM checkin c JOIN device d ON d.id = c.device_id
                WHERE d.model = \(model) AND c.calibration_source = \(CalibrationSource.server) ORDER BY c.venue_id
                """, logger: logger
            ).decode(String.self).reduce(into: [String]()) { $0.append($1) }
            for venue in venues { _ = try await Self.venueRow(venue, locking: true, on: connection, logger: logger) }
            try await Self.recalibratePrunedHours(model: model, to: offset, on: connection, logger: logger)
            try await connection.query(
                """
                UPDATE checkin c SET level_db = c.level_db + (\(offset) - c.calibration_db)
                FROM device d WHERE d.id = c.device_id AND d.model = \(model) AND c.calibration_source = \(CalibrationSource.server)
                  AND c.samples_pruned_at IS NOT NULL
                """, logger: logger)
            try await connection.query(
                """
                UPDATE checkin c SET calibration_db = \(offset) FROM device d
                WHERE d.id = c.device_id AND d.model = \(model) AND c.calibration_source = \(CalibrationSource.server)
                """, logger: logger)
            for venue in venues {
                try await Self.reanalyse(venueID: venue, on: connection, logger: logger)
                try await Self.refreshVenue(venue, on: connection, logger: logger)
            }
            try await announcement.venues(venues)
        }
    }

    /// The per-hour sums of a model's pruned check-ins that the server calibrates, at its new
    /// offset: they keep their hours, which cannot be placed again (`CellSums.recalibrated`).
    private static func recalibratePrunedHours(model: String, to offset: Double, on connection: PostgresConnection, logger: Logger) async throws {
        var hours: [(seq: Int64, hour: LocalHour, sums: CellSums)] = []
        for try await row in try await connection.query(
            """
            SELECT h.checkin_seq, h.weekday, h.hour, \(offset) - c.calibration_db, \(unescaped: CellSums.columnList(of: "h"))
            FROM checkin_hour h JOIN checkin c ON c.seq = h.checkin_seq JOIN device d ON d.id = c.device_id
            WHERE d.model = \(model) AND c.calibration_source = \(CalibrationSource.server) AND c.samples_pruned_at IS NOT NULL
            """, logger: logger)
        {
            let (seq, weekday, hour, shift) = try row.decode((Int64, Int, Int, Double).self)
            hours.append((seq, LocalHour(weekday: weekday, hour: hour), try CellSums(row.makeRandomAccess(), from: 4).recalibrated(byDB: shift)))
        }
        guard !hours.isEmpty else { return }
        var rows = PostgresBindings()
        rows.append(hours.map(\.seq))
        try rows.appendSums(cells: hours.map(\.hour), checkins: nil, sums: hours.map(\.sums))
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    UPDATE checkin_hour h SET \(CellSums.columns.map { "\($0.name) = u.\($0.name)" }.joined(separator: ", "))
                    FROM unnest(\(placeholders(from: 1, count: 1 + Statement.hourArrayCount))) AS u(checkin_seq, weekday, hour, \(CellSums.columnList()))
                    WHERE h.checkin_seq = u.checkin_seq AND h.weekday = u.weekday AND h.hour = u.hour
                    """, binds: rows), logger: logger)
    }

    // MARK: Listings

    static let venueListingSelect = """
        SELECT v.id, v.name, v.timezone, (SELECT COUNT(*) FROM checkin c WHERE c.venue_id = v.id),
               (SELECT MAX(c.received_at) FROM checkin c WHERE c.venue_id = v.id) AS latest
        FROM venue v
        """

    static func venueListings(_ connection: PostgresConnection, logger: Logger, _ query: PostgresQuery) async throws -> [VenueListing] {
        try await connection.query(query, logger: logger).decode((String, String, String, Int, Date?).self).reduce(into: []) {
            $0.append(VenueListing(id: $1.0, name: $1.1, timezone: $1.2, checkIns: $1.3, latestCheckIn: $1.4))
        }
    }

    static let deviceListingSelect = """
        SELECT d.id, d.model, d.platform, d.banned, d.created_at, d.last_seen_at,
               (SELECT COUNT(*) FROM checkin c WHERE c.device_id = d.id),
               (SELECT COUNT(*) FROM checkin c WHERE c.device_id = d.id AND c.status = '\(CheckInStatus.outlier.rawValue)')
        FROM device d
        """

    static func deviceListings(_ connection: PostgresConnection, logger: Logger, _ query: PostgresQuery) async throws -> [DeviceListing] {
        try await connection.query(query, logger: logger).decode((UUID, String, String, Bool, Date, Date, Int, Int).self).reduce(into: []) {
            $0.append(DeviceListing(id: $1.0, model: $1.1, platform: $1.2, banned: $1.3, firstSeen: $1.4, lastSeen: $1.5, checkIns: $1.6, outliers: $1.7))
        }
    }

    static let checkInListingSelect = """
        SELECT c.id, c.venue_id, v.name, c.device_id, d.model, c.started_at, c.received_at,
               c.samples, c.dropped_samples, c.level_db, c.status, c.marked_outlier, d.banned
        FROM checkin c JOIN venue v ON v.id = c.venue_id JOIN device d ON d.id = c.device_id
        """

    static func checkInListings(_ connection: PostgresConnection, logger: Logger, _ query: PostgresQuery) async throws -> [CheckInListing] {
        try await connection.query(query, logger: logger)
            .decode((UUID, String, String, UUID, String, Date, Date, Int, Int, Double?, CheckInStatus, Bool, Bool).self).reduce(into: []) {
                $0.append(
                    CheckInListing(
                        id: $1.0, venueID: $1.1, venueName: $1.2, deviceID: $1.3, deviceModel: $1.4, startedAt: $1.5, receivedAt: $1.6, samples: $1.7,
                        droppedSamples: $1.8, levelDB: $1.9, status: $1.10, markedOutlier: $1.11, deviceBanned: $1.12))
            }
    }
}

/// Sendable carriers for what leaves a read (tuples of arrays of tuples are not).
private struct AdminPage: Sendable {
    var venues: [(venue: VenueListing, levelDB: Double)]
    var total: Int
}

