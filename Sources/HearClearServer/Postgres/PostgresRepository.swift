import Foundation
import HearClearAnalysis
import HearClearCore
import Logging
import PostgresNIO

/// Enumerations stored as their raw text. Spelled out because these enums are also `Codable`,
/// for which postgres-nio would otherwise pick its JSON encoding.
protocol PostgresTextEnum: PostgresCodable, RawRepresentable where RawValue == String {}

extension PostgresTextEnum {
    public static var psqlType: PostgresDataType { .text }
    public static var psqlFormat: PostgresFormat { .binary }

    public func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeString(rawValue)
    }

    public init<JSONDecoder: PostgresJSONDecoder>(
        from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat, context: PostgresDecodingContext<JSONDecoder>
    ) throws {
        guard let text = buffer.readString(length: buffer.readableBytes), let value = Self(rawValue: text) else {
            throw PostgresDecodingError.Code.failure
        }
        self = value
    }
}

extension CheckInStatus: PostgresTextEnum {}
extension Weighting: PostgresTextEnum {}
extension CalibrationSource: PostgresTextEnum {}
extension VenueChangeAction: PostgresTextEnum {}
extension VenueKind: PostgresTextEnum {}

/// The store for deployments that outgrow one machine: several stateless servers over one
/// PostgreSQL, through postgres-nio's connection pool. It fetches and saves exactly what the SQLite
/// store does (Migrations/postgres holds the same tables in PostgreSQL's types) and leaves every
/// decision to `Analysis`.
///
/// Writes that touch a venue's analysis lock the venue's row (`SELECT … FOR UPDATE`) first, so that
/// check-ins for one venue arriving at several servers are analysed one after the other, exactly as
/// one server would, while other venues go on in parallel. A row lock rather than an advisory lock:
/// it needs no hash of the venue id into a number (no collisions), it also orders the writes that
/// change the venue itself (a new time zone), and it ends with the transaction whatever happens.
/// Each write that changes answers notifies the other servers (`NOTIFY hearclear_venue`, see
/// `VenueAnnouncement`).
public struct PostgresRepository: Repository {
    let client: PostgresClient
    /// The connections that store groups of uploads (`PostgresGroupCommit`), which plan each
    /// statement once (`PostgresAddress.clientConfiguration(planningOnce:)`).
    let uploadClient: PostgresClient
    let defaultCalibrationDB: Double
    let changes: VenueChangeFeed
    let health: PostgresHealth
    let groupCommit = PostgresGroupCommit()
    let logger: Logger

    /// The channel on which servers tell each other which venue changed (`*`: all of them).
    static let changeChannel = "hearclear_venue"

    /// `uploadClient` stores groups of uploads; nil: `client` does.
    public init(
        client: PostgresClient, uploadClient: PostgresClient? = nil, defaultCalibrationDB: Double = Level.defaultCalibrationDB,
        changes: VenueChangeFeed = VenueChangeFeed(), health: PostgresHealth = PostgresHealth(), logger: Logger
    ) {
        self.client = client
        self.uploadClient = uploadClient ?? client
        self.health = health
        self.defaultCalibrationDB = defaultCalibrationDB
        self.changes = changes
        self.logger = logger
    }

    /// Runs `body` in a transaction, on a connection of `pool` (nil: `client`); no connection in
    /// time, or a lost one, becomes `StoreUnavailable`.
    @discardableResult
    func transaction<Result: Sendable>(
        on pool: PostgresClient? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await (pool ?? client).withAvailableTransaction(health: health, logger: logger, body)
    }

    func read<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        try await client.withAvailableConnection(health: health, body)
    }

    /// Runs `body` in one REPEATABLE READ transaction: its queries all see the database as it was at
    /// the first, whatever commits meanwhile (a page's figures agree with each other; `verify` sees no
    /// half-made change).
    func snapshot<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        try await transaction { [logger] connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", logger: logger)
            return try await body(connection)
        }
    }

    /// Runs `body` in a transaction whose changes to venues' answers it announces (`VenueAnnouncement`).
    func transaction<Result: Sendable>(
        on pool: PostgresClient? = nil, announcing body: @escaping @Sendable (PostgresConnection, VenueAnnouncement) async throws -> Result
    ) async throws -> Result {
        let logger = logger, changes = changes
        let (result, announcement) = try await transaction(on: pool) { connection in
            let announcement = VenueAnnouncement(connection: connection, origin: changes.id, logger: logger)
            return (try await body(connection, announcement), announcement)
        }
        announcement.tell(changes)
        return result
    }

    // MARK: Devices

    public func registerDevice(_ registration: DeviceRegistration, tokenHash: Data, at now: Date) async throws -> UUID {
        let id = UUID()
        try await transaction { connection in
            try await connection.query(
                """
                INSERT INTO device (id, token_hash, model, platform, banned, created_at, last_seen_at)
                VALUES (\(id), \(tokenHash), \(registration.model), \(registration.platform), false, \(now), \(now))
                """, logger: logger)
        }
        return id
    }

    public func device(tokenHash: Data) async throws -> Device? {
        try await read { connection in
            try await connection.execute(Statement.DeviceByToken(tokenHash: tokenHash), logger: logger).first { _ in true }
                .map { Device(id: $0.0, model: $0.1, platform: $0.2, banned: $0.3) }
        }
    }

    // MARK: Venues

    public func saveVenue(id: String, _ venue: VenueUpsert, by device: UUID, at now: Date) async throws -> VenueSaveOutcome {
        try await transaction { connection, announcement -> VenueSaveOutcome in
            try await Self.touch(device: device, at: now, on: connection, logger: logger)
            if let target = try await Self.alias(of: id, on: connection, logger: logger) { return .merged(into: target) }
            if let stored = try await Self.venueRow(id, locking: true, on: connection, logger: logger) {
                guard stored.owner == device else { return .notOwner }
                try await Self.change(stored, to: venue, by: .device(device), at: now, on: connection, logger: logger)
                try await announcement.venues([id])
                return .updated
            }
            // Two devices creating the same id at once: the second waits, then finds it taken.
            let inserted = try await connection.query(
                """
                INSERT INTO venue (id, name, name_folded, latitude, longitude, timezone, kind, created_at, updated_at, owner_device_id)
                VALUES (\(id), \(venue.name), \(VenueQuery.folded(venue.name)), \(venue.latitude), \(venue.longitude), \(venue.timezone), \(venue.kind), \(now), \(now), \(device))
                ON CONFLICT (id) DO NOTHING RETURNING id
                """, logger: logger
            ).decode(String.self).first { _ in true }
            guard inserted != nil else { return .notOwner }
            try await Self.recordChange(
                of: id, .create, by: .device(device), before: nil, after: VenueSnapshot(id: id, venue: venue, owner: device), at: now,
                on: connection, logger: logger)
            try await announcement.venues([id])
            return .created
        }
    }

    public func mergedVenue(id: String) async throws -> String? {
        try await read { connection in try await Self.alias(of: id, on: connection, logger: logger) }
    }

    public func calibrationOffset(model: String) async throws -> Double? {
        try await read { [logger] connection in
            try await connection.query("SELECT offset_db FROM calibration WHERE model = \(model)", logger: logger)
                .decode(Double.self).reduce(into: [Double]()) { $0.append($1) }.first
        }
    }

    public func venue(id: String) async throws -> VenueSummary? {
        try await read { connection in
            try await Self.venueSummaries(
                connection, cell: VenueQuery.overall, logger: logger,
                "SELECT \(unescaped: Self.summaryColumns) FROM venue v LEFT JOIN loudness l ON \(unescaped: Self.join(VenueQuery.overall)) WHERE v.id = \(id)"
            ).first
        }
    }

    public func venues(matching query: VenueQuery) async throws -> [VenueSummary] {
        try await read { connection in
            // LIKE ALL of no pattern holds; with ALL, LIKE takes PostgreSQL's default escape, `\`.
            let patterns = VenueQuery.likePatterns(eachWordOf: query.nameWords)
            guard let near = query.near else {
                return try await Self.venueSummaries(
                    connection, cell: query.cell, logger: logger,
                    """
                    SELECT \(unescaped: Self.summaryColumns) FROM venue v LEFT JOIN loudness l ON \(unescaped: Self.join(query.cell))
                    WHERE \(unescaped: VenueQuery.nameFoldedColumn) LIKE ALL (\(patterns)::text[])
                    ORDER BY v.name_folded COLLATE "C", v.id LIMIT \(query.limit)
                    """)
            }
            let box = near.boundingBox(radius: query.radiusM)
            let longitudes = box.longitude ?? -180...180
            let candidates = try await Self.venueSummaries(
                connection, cell: query.cell, logger: logger,
                """
                SELECT \(unescaped: Self.summaryColumns) FROM venue v LEFT JOIN loudness l ON \(unescaped: Self.join(query.cell))
                WHERE \(unescaped: VenueQuery.nameFoldedColumn) LIKE ALL (\(patterns)::text[])
                  AND v.latitude BETWEEN \(box.latitude.lowerBound) AND \(box.latitude.upperBound)
                  AND v.longitude BETWEEN \(longitudes.lowerBound) AND \(longitudes.upperBound)
                """)
            return query.nearest(candidates, to: near)
        }
    }

    static let summaryColumns = "v.id, v.name, v.latitude, v.longitude, v.timezone, v.kind, l.checkins, \(CellSums.columnList(of: "l"))"

    /// The join of a venue with one of its cells (whole numbers only, so written into the text).
    static func join(_ cell: LocalHour) -> String {
        "l.venue_id = v.id AND l.weekday = \(cell.weekday) AND l.hour = \(cell.hour)"
    }

    private static func venueSummaries(_ connection: PostgresConnection, cell: LocalHour, logger: Logger, _ query: PostgresQuery) async throws -> [VenueSummary] {
        var summaries: [VenueSummary] = []
        for try await row in try await connection.query(query, logger: logger) {
            let (id, name, latitude, longitude, timezone, kind, checkins) = try row.decode((String, String, Double, Double, String, VenueKind?, Int?).self)
            // A venue without this cell has NULL in every column of the cell.
            let aggregate = try checkins.map {
                LoudnessAggregate(weekday: cell.weekday, hour: cell.hour, checkins: $0, sums: try CellSums(row.makeRandomAccess(), from: 7))
            }
            summaries.append(
                VenueSummary(
                    id: id, venue: VenueUpsert(name: name, latitude: latitude, longitude: longitude, timezone: timezone, kind: kind), aggregate: aggregate))
        }
        return summaries
    }

    // MARK: Check-ins

    public func uploadedCheckIn(id: UUID, by device: UUID) async throws -> CheckIn? {
        try await read { [logger] connection -> CheckIn? in
            guard
                let (seq, venueID, startedAt, interval, weighting, calibration, source, model) = try await connection.query(
                    """
                    SELECT seq, venue_id, started_at, interval_s, weighting, calibration_db, calibration_source, classes_model
                    FROM checkin WHERE id = \(id) AND device_id = \(device)
                    """, logger: logger
                ).decode((Int64, String, Date, Double, Weighting, Double, CalibrationSource, Int?).self).first(where: { _ in true })
            else { return nil }
            let events = try await Self.events(of: seq, on: connection, logger: logger)
            return CheckIn(
                id: id, venueID: venueID, startedAt: startedAt, intervalS: interval, weighting: weighting,
                calibrationDB: source == .checkIn ? calibration : nil, samples: try await Self.storedSamples(of: seq, on: connection, logger: logger)?.samples ?? [],
                events: events, classesModel: model)
        }
    }

    // MARK: Loudness

    public func evidence(venueIDs: [String]) async throws -> [String: VenueEvidence] {
        try await read { [logger] connection in
            var rows: [VenueEvidence.Row] = []
            for try await (venue, timezone, seq, device, started, model, status, banned, weekday, hour) in try await connection.query(
                """
                SELECT v.id, v.timezone, c.seq, c.device_id, c.started_at, c.classes_model, c.status, d.banned, h.weekday, h.hour
                FROM venue v JOIN checkin c ON c.venue_id = v.id JOIN device d ON d.id = c.device_id JOIN checkin_hour h ON h.checkin_seq = c.seq
                WHERE v.id = ANY(\(venueIDs)) AND h.samples > 0 ORDER BY c.seq
                """, logger: logger
            ).decode((String, String, Int64, UUID, Date, Int?, CheckInStatus, Bool, Int, Int).self)
            where Analysis.counts(status: status, deviceBanned: banned) {
                rows.append((venue, timezone, seq, device.wireString, started.timeIntervalSince1970, model, LocalHour(weekday: weekday, hour: hour)))
            }
            return VenueEvidence.grouped(rows)
        }
    }

    public func hourObservations() async throws -> [HourObservation<Int64>] {
        try await read { [logger] connection in
            var observations: [HourObservation<Int64>] = []
            for try await (seq, venue, kind, status, banned, weekday, hour, samples, energy) in try await connection.query(
                """
                SELECT c.seq, c.venue_id, v.kind, c.status, d.banned, h.weekday, h.hour, h.samples, h.energy
                FROM checkin c JOIN venue v ON v.id = c.venue_id JOIN device d ON d.id = c.device_id JOIN checkin_hour h ON h.checkin_seq = c.seq
                ORDER BY c.seq, h.weekday, h.hour
                """, logger: logger
            ).decode((Int64, String, VenueKind?, CheckInStatus, Bool, Int, Int, Int, Double).self) {
                if let observation = HourObservation(
                    venue: venue, kind: kind, checkIn: seq, hour: LocalHour(weekday: weekday, hour: hour), samples: samples, energy: energy,
                    status: status, deviceBanned: banned)
                {
                    observations.append(observation)
                }
            }
            return observations
        }
    }

    public func loudness(venueID: String) async throws -> [LoudnessAggregate]? {
        try await read { connection in
            guard try await Self.venueRow(venueID, locking: false, on: connection, logger: logger) != nil else { return nil }
            return try await Self.cells(of: venueID, on: connection, logger: logger)
        }
    }
}
