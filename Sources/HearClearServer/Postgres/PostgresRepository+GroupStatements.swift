import Foundation
import HearClearAnalysis
import HearClearCore
import Logging
import NIOCore
import PostgresNIO

// The statements that store a group of uploads (`PostgresGroupCommit`), each one round trip for
// the whole group: every value of the group's rows bound as one array per column for `unnest`.
//
// Where rows are looked up by a list of keys, each key is looked up on its own (`LATERAL (…
// OFFSET 0)`, which PostgreSQL cannot turn into a join): a prepared statement keeps the plan it
// made for the tables as they were, and the plan a join got on the nearly empty tables of a new
// store walked every cell for each group (`EXPLAIN EXECUTE` with `plan_cache_mode =
// force_generic_plan` on a new store shows it; docs/profiling.md).
extension PostgresRepository.Statement {
    /// Venues' rows, locked until the transaction ends, in id order: two transactions locking
    /// some of the same venues take them in the same order, so neither waits for the other forever.
    struct LockedVenues: PostgresPreparedStatement {
        static let sql = "SELECT \(PostgresRepository.Statement.venueColumnList) FROM venue WHERE id = ANY($1) ORDER BY id FOR UPDATE"
        static let bindingDataTypes: [PostgresDataType] = [.textArray]
        var ids: [String]
        func makeBindings() throws -> PostgresBindings { try PostgresBindings(ids) }
        func decodeRow(_ row: PostgresRow) throws -> PostgresRepository.Statement.VenueColumns { try row.decode(PostgresRepository.Statement.VenueColumns.self) }
    }

    /// The venues some merged venues' ids now name.
    struct Aliases: PostgresPreparedStatement {
        static let sql = "SELECT id, venue_id FROM venue_alias WHERE id = ANY($1)"
        static let bindingDataTypes: [PostgresDataType] = [.textArray]
        var ids: [String]
        func makeBindings() throws -> PostgresBindings { try PostgresBindings(ids) }
        func decodeRow(_ row: PostgresRow) throws -> (String, String) { try row.decode((String, String).self) }
    }

    /// The calibration table's offsets for some devices' models (none for a model it lacks).
    struct ServerCalibrations: PostgresPreparedStatement {
        static let sql = "SELECT d.id, c.offset_db FROM calibration c JOIN device d ON d.model = c.model WHERE d.id = ANY($1)"
        static let bindingDataTypes: [PostgresDataType] = [.uuidArray]
        var devices: [UUID]
        func makeBindings() throws -> PostgresBindings { try PostgresBindings(devices) }
        func decodeRow(_ row: PostgresRow) throws -> (UUID, Double) { try row.decode((UUID, Double).self) }
    }

    /// New check-ins with their sums per hour and their loud events, their devices seen and their
    /// venues' changes announced (`VenueAnnouncement`), in one round trip. Returns a row for each
    /// check-in stored (the first column true; an id another transaction or an earlier row took
    /// stores nothing) and the status rule's candidates among the other check-ins of their venues'
    /// home hours: the statement's snapshot does not see its own inserts, so the new rows come from
    /// the parameters.
    struct StoreCheckIns: PostgresPreparedStatement {
        static let checkInColumns = """
            id, venue_id, device_id, content_hash, started_at, interval_s, weighting, calibration_db, calibration_source, samples, \
            dropped_samples, level_db, home_weekday, home_hour, status, received_at, sample_columns, classes_model
            """
        static let inputArrayTypes: [PostgresDataType] = [
            .uuidArray, .textArray, .uuidArray, .byteaArray, .timestamptzArray, .float8Array, .textArray, .float8Array, .textArray, .int8Array,
            .int8Array, .float8Array, .int8Array, .int8Array, .textArray, .timestamptzArray, .byteaArray, .int2Array, .textArray,
        ]
        static let hoursParameter = inputArrayTypes.count + 1, eventsParameter = hoursParameter + 1 + PostgresRepository.Statement.hourArrayCount
        static let channelParameter = eventsParameter + 5, resolutionParameter = channelParameter + 1
        /// Arrays hold no NULLs here: a level the check-in lacks travels as NaN, a classes model as -1.
        static let sql = """
            WITH input AS (
                SELECT * FROM unnest(\(PostgresRepository.placeholders(from: 1, count: inputArrayTypes.count))) WITH ORDINALITY
                    AS i(\(checkInColumns), payload, n)
            ), c AS (
                INSERT INTO checkin (\(checkInColumns))
                SELECT id, venue_id, device_id, content_hash, started_at, interval_s, weighting, calibration_db, calibration_source, samples,
                    dropped_samples, NULLIF(level_db, 'NaN'), home_weekday, home_hour, status, received_at, sample_columns, NULLIF(classes_model, -1)
                FROM input ORDER BY n
                ON CONFLICT (id) DO NOTHING RETURNING seq, id
            ), stored AS (
                SELECT c.seq, i.* FROM c JOIN input i ON i.id = c.id
            ), hours AS (
                INSERT INTO checkin_hour (\(PostgresRepository.Statement.hourColumns))
                SELECT s.seq, s.venue_id, u.weekday, u.hour, \(CellSums.columnList(of: "u"))
                FROM unnest(\(PostgresRepository.placeholders(from: hoursParameter, count: 1 + PostgresRepository.Statement.hourArrayCount)))
                    AS u(n, weekday, hour, \(CellSums.columnList()))
                JOIN stored s ON s.n = u.n
            ), events AS (
                INSERT INTO event (checkin_seq, t, peak, duration_s, class)
                SELECT s.seq, e.t, e.peak, e.duration_s, NULLIF(e.class, '')
                FROM unnest(\(PostgresRepository.placeholders(from: eventsParameter, count: 5))) AS e(n, t, peak, duration_s, class)
                JOIN stored s ON s.n = e.n
            ), touched AS (
                UPDATE device d SET last_seen_at = s.received_at
                FROM (SELECT device_id, max(received_at) AS received_at FROM stored GROUP BY device_id) s
                WHERE d.id = s.device_id AND d.last_seen_at <= s.received_at - make_interval(secs => $\(resolutionParameter))
            ), notified AS (
                SELECT pg_notify($\(channelParameter), p.payload) FROM (SELECT DISTINCT payload FROM stored) p
            )
            SELECT true, s.id, s.venue_id, s.seq, s.samples - s.dropped_samples, NULLIF(s.level_db, 'NaN'), s.home_weekday, s.home_hour, s.status, false,
                d.banned
            FROM stored s JOIN device d ON d.id = s.device_id, (SELECT count(*) FROM notified) n
            UNION ALL
            SELECT false, o.id, o.venue_id, o.seq, o.samples - o.dropped_samples, o.level_db, o.home_weekday, o.home_hour, o.status, o.marked_outlier,
                d.banned
            FROM (SELECT DISTINCT venue_id, home_hour FROM stored) k
            CROSS JOIN LATERAL (SELECT * FROM checkin o WHERE o.venue_id = k.venue_id AND o.home_hour = k.home_hour OFFSET 0) o
            JOIN device d ON d.id = o.device_id
            """
        static let bindingDataTypes: [PostgresDataType] =
            inputArrayTypes + [.int8Array] + PostgresRepository.sumArrayTypes(counted: false) + [.int8Array, .float8Array, .float8Array, .float8Array, .textArray]
            + [.text, .float8]

        /// One check-in of the group, as stored.
        struct NewCheckIn: Sendable {
            var checkIn: CheckIn
            var venueID: String
            var device: UUID
            var contentHash: Data
            var calibrationDB: Double
            var prepared: PreparedCheckIn
            var receivedAt: Date
            var announcement: String
        }

        var rows: [NewCheckIn]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: Self.bindingDataTypes.count)
            bindings.append(rows.map(\.checkIn.id))
            bindings.append(rows.map(\.venueID))
            bindings.append(rows.map(\.device))
            bindings.append(rows.map { ByteBuffer(bytes: $0.contentHash) })
            bindings.append(rows.map(\.checkIn.startedAt))
            bindings.append(rows.map(\.checkIn.intervalS))
            bindings.append(rows.map(\.checkIn.weighting.rawValue))
            bindings.append(rows.map(\.calibrationDB))
            bindings.append(rows.map { CalibrationSource(of: $0.checkIn).rawValue })
            bindings.append(rows.map(\.checkIn.samples.count))
            bindings.append(rows.map(\.prepared.analysis.droppedSamples))
            bindings.append(rows.map { $0.prepared.analysis.levelDB ?? .nan })
            bindings.append(rows.map(\.prepared.analysis.homeHour.weekday))
            bindings.append(rows.map(\.prepared.analysis.homeHour.hour))
            bindings.append(rows.map { $0.prepared.storedStatus().rawValue })
            bindings.append(rows.map(\.receivedAt))
            bindings.append(rows.map { ByteBuffer(bytes: $0.prepared.sampleColumns) })
            bindings.append(rows.map { $0.checkIn.classesModel.map(Int16.init) ?? -1 })
            bindings.append(rows.map(\.announcement))

            // Each check-in's hours and events after the number of its row (`WITH ORDINALITY` counts from 1).
            let hours = rows.enumerated().flatMap { number, row in row.prepared.analysis.hours.sorted { $0.key < $1.key }.map { (number + 1, $0) } }
            bindings.append(hours.map(\.0))
            try bindings.appendSums(cells: hours.map(\.1.key), checkins: nil, sums: hours.map(\.1.value))
            let events = rows.enumerated().flatMap { number, row in row.checkIn.events.map { (number + 1, $0) } }
            bindings.append(events.map(\.0))
            for column in [events.map(\.1.t), events.map(\.1.peak), events.map(\.1.durationS)] { bindings.append(column) }
            // An unclassified event's class travels as an empty text.
            bindings.append(events.map { $0.1.sound?.rawValue ?? "" })

            bindings.append(PostgresRepository.changeChannel)
            bindings.append(HearClearServer.Device.lastSeenResolution)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> (isNew: Bool, id: UUID, venueID: String, candidate: StatusCandidate<Int64>) {
            let (isNew, id, venueID, seq, kept, level, weekday, hour, status, marked, banned) = try row.decode(
                (Bool, UUID, String, Int64, Int, Double?, Int, Int, CheckInStatus, Bool, Bool).self)
            return (isNew, id, venueID, PostgresRepository.Statement.StatusCandidates.candidate(seq, kept, level, weekday, hour, status, marked, banned))
        }
    }

    /// Some venues' cells, each named by its venue, weekday and hour.
    struct CellsAt: PostgresPreparedStatement {
        static let sql = """
            SELECT l.venue_id, l.weekday, l.hour, \(LoudnessAggregate.columns.map { "l.\($0)" }.joined(separator: ", "))
            FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS k(venue_id, weekday, hour)
            CROSS JOIN LATERAL (SELECT * FROM loudness l WHERE l.venue_id = k.venue_id AND l.weekday = k.weekday AND l.hour = k.hour OFFSET 0) l
            """
        static let bindingDataTypes: [PostgresDataType] = [.textArray, .int8Array, .int8Array]
        var cells: [(venueID: String, cell: LocalHour)]
        func makeBindings() throws -> PostgresBindings { try PostgresRepository.Statement.bindings(of: cells) }
        func decodeRow(_ row: PostgresRow) throws -> (venueID: String, cell: LoudnessAggregate) {
            (try row.makeRandomAccess()[0].decode(String.self), try PostgresRepository.Statement.Cells.cell(row, from: 1))
        }
    }

    /// The per-hour sums of every check-in in some venues' cells of one weekday and hour, each
    /// named by its venue, weekday and hour (looked up one by one, as above).
    struct ContributionsInCells: PostgresPreparedStatement {
        static let sql = """
            SELECT h.venue_id, \(PostgresRepository.Statement.Contributions.columns)
            FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS k(venue_id, weekday, hour)
            CROSS JOIN LATERAL (SELECT * FROM checkin_hour h WHERE h.venue_id = k.venue_id AND h.weekday = k.weekday AND h.hour = k.hour OFFSET 0) h
            \(PostgresRepository.Statement.Contributions.joins)
            """
        static let bindingDataTypes: [PostgresDataType] = [.textArray, .int8Array, .int8Array]
        var cells: [(venueID: String, cell: LocalHour)]
        func makeBindings() throws -> PostgresBindings { try PostgresRepository.Statement.bindings(of: cells) }
        func decodeRow(_ row: PostgresRow) throws -> (venueID: String, contribution: HourContribution<Int64>) {
            (try row.makeRandomAccess()[0].decode(String.self), try PostgresRepository.Statement.Contributions.contribution(row, from: 1))
        }
    }

    /// Deletes some venues' cells, each named by its venue, weekday and hour.
    struct DeleteCells: PreparedCommand {
        static let sql = """
            DELETE FROM loudness l USING unnest($1::text[], $2::bigint[], $3::bigint[]) AS k(venue_id, weekday, hour)
            WHERE l.venue_id = k.venue_id AND l.weekday = k.weekday AND l.hour = k.hour
            """
        static let bindingDataTypes: [PostgresDataType] = [.textArray, .int8Array, .int8Array]
        var cells: [(venueID: String, cell: LocalHour)]
        func makeBindings() throws -> PostgresBindings { try PostgresRepository.Statement.bindings(of: cells) }
    }

    /// A list of cells, each named by its venue, weekday and hour: three arrays for `unnest`.
    static func bindings(of cells: [(venueID: String, cell: LocalHour)]) throws -> PostgresBindings {
        try PostgresBindings(cells.map(\.venueID), cells.map(\.cell.weekday), cells.map(\.cell.hour))
    }
}
