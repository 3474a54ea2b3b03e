import Foundation
import GRDB
import HearClearAnalysis
import HearClearMigrations
import Logging
import PostgresNIO

/// `hearclear-server copy`: moves a deployment from its SQLite file to PostgreSQL, every row as it
/// is — devices with their token hashes (tokens keep working), venues, aliases, check-ins with their
/// statuses and marks, samples, events, per-hour sums, cells, calibrations and venue history. Rate
/// windows are not copied: they last a minute.
///
/// The source is opened read-only and read from one snapshot, so a server still writing to it
/// cannot tear the copy; the target is written in one transaction, so a copy that fails leaves it
/// as it was. Check-ins keep their `seq`, which the sample rows refer to.
public enum DeploymentCopy {
    /// What was copied, for the command to report.
    public struct Summary: Sendable {
        public var venues = 0, devices = 0, checkIns = 0, samples = 0
    }

    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// Check-ins (with their samples, events and per-hour sums) per statement: bounded memory
    /// whatever the size of the deployment.
    static let checkInsPerBatch = 500

    public static func copy(
        from sourcePath: String, to target: PostgresRepository, force: Bool, logger: Logger
    ) async throws -> Summary {
        let source = try openSource(sourcePath)
        defer { try? source.close() }
        let snapshot = try source.makeSnapshot()
        return try await target.transaction { connection, announcement in
            try await prepare(connection, force: force, logger: logger)
            let summary = try await copyRows(from: snapshot, to: connection, logger: logger)
            try await announcement.everyVenue()
            return summary
        }
    }

    /// Read-only, and only at this server's schema: migrating it here would modify the source.
    static func openSource(_ path: String) throws -> DatabasePool {
        guard FileManager.default.fileExists(atPath: path) else { throw Refusal(description: "\(path) does not exist") }
        var configuration = Configuration()
        configuration.readonly = true
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch let error as DatabaseError {
            throw Refusal(description: "cannot open \(path) for reading: \(error.message ?? "\(error.resultCode)")")
        }
        let current = try pool.read { db in try SQLiteDatabase.migrator().hasCompletedMigrations(db) }
        guard current else {
            try? pool.close()
            throw Refusal(
                description: "\(path) is not at this server's schema: run `hearclear-server migrate --database \(path)` on it (or on a backup of it) first")
        }
        return pool
    }

    /// Refuses a target that holds data, unless `force`, which empties it first.
    static func prepare(_ connection: PostgresConnection, force: Bool, logger: Logger) async throws {
        let rows = try await connection.query(
            "SELECT (SELECT count(*) FROM venue), (SELECT count(*) FROM device), (SELECT count(*) FROM checkin), (SELECT count(*) FROM calibration)",
            logger: logger
        ).decode((Int, Int, Int, Int).self).first { _ in true } ?? (0, 0, 0, 0)
        guard rows != (0, 0, 0, 0) else { return }
        guard force else {
            throw Refusal(
                description:
                    "the target is not empty (\(rows.0) venues, \(rows.1) devices, \(rows.2) check-ins, \(rows.3) calibrations): copy refuses to mix two deployments; --force empties it first")
        }
        try await connection.query(
            """
            TRUNCATE device, venue, venue_alias, checkin, event, checkin_hour, loudness, calibration, venue_change, rate_bucket
            RESTART IDENTITY
            """, logger: logger)
    }

    static func copyRows(from source: DatabaseSnapshot, to connection: PostgresConnection, logger: Logger) async throws -> Summary {
        var summary = Summary()
        let devices = try await source.read { db in try DeviceRecord.order(Column("id")).fetchAll(db) }
        try await connection.query(
            """
            INSERT INTO device (id, token_hash, model, platform, banned, created_at, last_seen_at)
            SELECT * FROM unnest(\(devices.map(\.id)), \(devices.map { ByteBuffer(bytes: $0.tokenHash) }), \(devices.map(\.model)),
                \(devices.map(\.platform)), \(devices.map(\.banned)), \(devices.map(\.createdAt)), \(devices.map(\.lastSeenAt)))
            """, logger: logger)
        summary.devices = devices.count
        // A check-in names its device by the device's row number in SQLite and by its id here.
        let deviceIDs = Dictionary(uniqueKeysWithValues: devices.compactMap { device in device.seq.map { ($0, device.id) } })

        // Arrays cannot carry NULLs here (postgres-nio encodes no optional elements): a nullable
        // column travels as text, '' standing for NULL, which no valid value is.
        let venues = try await source.read { db in try VenueRecord.order(Column("id")).fetchAll(db) }
        try await connection.query(
            """
            INSERT INTO venue (id, name, name_folded, latitude, longitude, timezone, kind, created_at, updated_at, owner_device_id)
            SELECT id, name, name_folded, latitude, longitude, timezone, NULLIF(kind, ''), created_at, updated_at, NULLIF(owner, '')::uuid
            FROM unnest(\(venues.map(\.id)), \(venues.map(\.name)), \(venues.map(\.nameFolded)), \(venues.map(\.latitude)), \(venues.map(\.longitude)),
                \(venues.map(\.timezone)), \(venues.map { $0.kind?.rawValue ?? "" }), \(venues.map(\.createdAt)), \(venues.map(\.updatedAt)),
                \(venues.map { $0.ownerDeviceId?.wireString ?? "" }))
                AS v(id, name, name_folded, latitude, longitude, timezone, kind, created_at, updated_at, owner)
            """, logger: logger)
        summary.venues = venues.count

        let aliases = try await source.read { db in try VenueAliasRecord.order(Column("id")).fetchAll(db) }
        try await connection.query(
            "INSERT INTO venue_alias (id, venue_id) SELECT * FROM unnest(\(aliases.map(\.id)), \(aliases.map(\.venueId)))", logger: logger)

        var last: Int64 = 0
        while true {
            let after = last
            let batch = try source.read { db in
                let checkIns = try CheckInRecord.filter(Column("seq") > after).order(Column("seq")).limit(checkInsPerBatch).fetchAll(db)
                let range = [after + 1, checkIns.last?.seq ?? after]
                return (
                    checkIns,
                    try Row.fetchAll(db, sql: "SELECT checkin_seq, t, peak, duration_s, class FROM event WHERE checkin_seq BETWEEN ? AND ?", arguments: StatementArguments(range)),
                    try Row.fetchAll(
                        db, sql: "SELECT checkin_seq, venue_id, weekday, hour, \(CellSums.columnList()) FROM checkin_hour WHERE checkin_seq BETWEEN ? AND ?",
                        arguments: StatementArguments(range)
                    ).map { row in
                        (seq: row["checkin_seq"] as Int64, venue: row["venue_id"] as String, hour: LocalHour(weekday: row["weekday"], hour: row["hour"]),
                         sums: try CellSums(row: row))
                    }
                )
            }
            let (checkIns, events, hours) = batch
            guard let newest = checkIns.last?.seq else { break }
            try await insert(checkIns, deviceIDs: deviceIDs, on: connection, logger: logger)
            // An event's unclassified class travels as an empty text (arrays bound as parameters cannot hold NULLs).
            try await connection.query(
                """
                INSERT INTO event (checkin_seq, t, peak, duration_s, class)
                SELECT checkin_seq, t, peak, duration_s, NULLIF(class, '')
                FROM unnest(\(events.map { $0["checkin_seq"] as Int64 }), \(events.map { $0["t"] as Double }),
                    \(events.map { $0["peak"] as Double }), \(events.map { $0["duration_s"] as Double }), \(events.map { ($0["class"] as String?) ?? "" }))
                    AS u(checkin_seq, t, peak, duration_s, class)
                """, logger: logger)
            var hourRows = PostgresBindings()
            hourRows.append(hours.map(\.seq))
            hourRows.append(hours.map(\.venue))
            try hourRows.appendSums(cells: hours.map(\.hour), checkins: nil, sums: hours.map(\.sums))
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO checkin_hour (\(PostgresRepository.Statement.hourColumns))
                        SELECT * FROM unnest(\(PostgresRepository.placeholders(from: 1, count: 2 + PostgresRepository.Statement.hourArrayCount)))
                        """, binds: hourRows), logger: logger)
            summary.checkIns += checkIns.count
            summary.samples += checkIns.filter { $0.sampleColumns != nil }.map(\.samples).reduce(0, +)
            last = newest
        }
        try await connection.query(
            "SELECT setval(pg_get_serial_sequence('checkin', 'seq'), COALESCE(max(seq), 0) + 1, false) FROM checkin", logger: logger)

        let cells = try await source.read { db in try LoudnessRecord.fetchAll(db) }
        var cellRows = PostgresBindings()
        cellRows.append(cells.map(\.venueId))
        try cellRows.appendCells(cells.map(\.aggregate))
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO loudness (venue_id, weekday, hour, \(LoudnessAggregate.columns.joined(separator: ", ")))
                    SELECT * FROM unnest(\(PostgresRepository.placeholders(from: 1, count: 1 + PostgresRepository.cellArrayTypes.count)))
                    """, binds: cellRows), logger: logger)

        let calibrations = try await source.read { db in try CalibrationRecord.fetchAll(db) }
        try await connection.query(
            """
            INSERT INTO calibration (model, offset_db, updated_at)
            SELECT * FROM unnest(\(calibrations.map(\.model)), \(calibrations.map(\.offsetDb)), \(calibrations.map(\.updatedAt)))
            """, logger: logger)

        // In their order, so the history reads the same; `before` and `after` are JSON or NULL.
        let history = try await source.read { db in try VenueChangeRecord.order(Column("seq")).fetchAll(db) }
        try await connection.query(
            """
            INSERT INTO venue_change (venue_id, changed_at, actor, action, before, after)
            SELECT venue_id, changed_at, actor, action, NULLIF(before, ''), NULLIF(after, '')
            FROM unnest(\(history.map(\.venueId)), \(history.map(\.changedAt)), \(history.map(\.actor)), \(history.map(\.action.rawValue)),
                \(history.map { $0.before ?? "" }), \(history.map { $0.after ?? "" })) WITH ORDINALITY
                AS h(venue_id, changed_at, actor, action, before, after, position)
            ORDER BY position
            """, logger: logger)
        return summary
    }

    /// The id of a check-in's device; SQLite's foreign key keeps it there, so a miss is a damaged file.
    private static func deviceID(of checkIn: CheckInRecord, in deviceIDs: [Int64: UUID]) throws -> UUID {
        guard let id = deviceIDs[checkIn.deviceSeq] else {
            throw Refusal(description: "check-in \(checkIn.id.wireString) names device \(checkIn.deviceSeq), which the file does not hold")
        }
        return id
    }

    /// Check-ins with their own `seq`, their samples blob as it is (both stores write the same
    /// format); nullable columns as text ('' for NULL), a pruned check-in's blob as no bytes, an
    /// unknown classes model as 0 (no model has it).
    private static func insert(_ checkIns: [CheckInRecord], deviceIDs: [Int64: UUID], on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO checkin (seq, id, venue_id, device_id, content_hash, started_at, interval_s, weighting, calibration_db,
                calibration_source, samples, dropped_samples, level_db, home_weekday, home_hour, status, received_at, marked_outlier,
                samples_pruned_at, sample_columns, classes_model)
            OVERRIDING SYSTEM VALUE
            SELECT seq, id, venue_id, device_id, content_hash, started_at, interval_s, weighting, calibration_db, calibration_source,
                samples, dropped_samples, NULLIF(level_db, '')::double precision, home_weekday, home_hour, status, received_at,
                marked_outlier, to_timestamp(NULLIF(samples_pruned_at, '')::double precision), NULLIF(sample_columns, ''::bytea),
                NULLIF(classes_model, 0)
            FROM unnest(\(checkIns.map { $0.seq ?? 0 }), \(checkIns.map(\.id)), \(checkIns.map(\.venueId)), \(try checkIns.map { try deviceID(of: $0, in: deviceIDs) }),
                \(checkIns.map { ByteBuffer(bytes: $0.contentHash) }), \(checkIns.map(\.startedAt)), \(checkIns.map(\.intervalS)),
                \(checkIns.map(\.weighting.rawValue)), \(checkIns.map(\.calibrationDb)), \(checkIns.map(\.calibrationSource.rawValue)),
                \(checkIns.map { Int32($0.samples) }), \(checkIns.map { Int32($0.droppedSamples) }),
                \(checkIns.map { $0.levelDb.map { "\($0)" } ?? "" }), \(checkIns.map { Int16($0.homeWeekday) }),
                \(checkIns.map { Int16($0.homeHour) }), \(checkIns.map(\.status.rawValue)), \(checkIns.map(\.receivedAt)),
                \(checkIns.map(\.markedOutlier)), \(checkIns.map { $0.samplesPrunedAt.map(Self.timestamp) ?? "" }),
                \(checkIns.map { ByteBuffer(bytes: $0.sampleColumns ?? Data()) }), \(checkIns.map { Int16($0.classesModel ?? 0) }))
                AS c(seq, id, venue_id, device_id, content_hash, started_at, interval_s, weighting, calibration_db, calibration_source,
                    samples, dropped_samples, level_db, home_weekday, home_hour, status, received_at, marked_outlier, samples_pruned_at,
                    sample_columns, classes_model)
            """, logger: logger)
    }

    /// An instant as seconds since 1970, which `to_timestamp` reads back.
    private static func timestamp(_ date: Date) -> String {
        "\(date.timeIntervalSince1970)"
    }
}
