import Foundation
import HearClearAnalysis
import HearClearCore
import Logging
import PostgresNIO

/// A prepared statement (`PostgresRepository.Statement`) that returns no rows.
protocol PreparedCommand: PostgresPreparedStatement where Row == () {}

extension PreparedCommand {
    func decodeRow(_ row: PostgresRow) {}
}

extension PostgresConnection {
    /// Runs a statement that returns no rows.
    func run(_ command: some PreparedCommand, logger: Logger) async throws {
        _ = try await execute(command, logger: logger)
    }
}

extension PostgresBindings {
    /// Bindings of these values, in order.
    init(_ values: any PostgresThrowingDynamicTypeEncodable...) throws {
        self.init(capacity: values.count)
        for value in values { try append(value) }
    }

    /// Bindings of these values, in order, a nil binding NULL.
    init(nullable values: (any PostgresThrowingDynamicTypeEncodable)?...) throws {
        self.init(capacity: values.count)
        for value in values {
            if let value { try append(value) } else { appendNull() }
        }
    }
}

extension PostgresRepository {
    /// A statement PostgreSQL parses and plans once per connection, then only binds and runs.
    /// postgres-nio sends every `query` as an unnamed statement, parsed and planned again each time:
    /// that was half of PostgreSQL's CPU in the ingest case (docs/profiling.md, "Ingest"). So every
    /// statement an upload, a token check or a venue's answer runs is one of these; the rarer ones stay
    /// `query`s. The parameters' types are spelled out because a first execution with a NULL would
    /// otherwise leave PostgreSQL to guess them for every later one.
    enum Statement {
        struct Begin: PreparedCommand {
            static let sql = "BEGIN"
            func makeBindings() -> PostgresBindings { PostgresBindings() }
        }

        struct Commit: PreparedCommand {
            static let sql = "COMMIT"
            func makeBindings() -> PostgresBindings { PostgresBindings() }
        }

        struct DeviceByToken: PostgresPreparedStatement {
            static let sql = "SELECT id, model, platform, banned FROM device WHERE token_hash = $1"
            static let bindingDataTypes: [PostgresDataType] = [.bytea]
            var tokenHash: Data
            func makeBindings() throws -> PostgresBindings { try PostgresBindings(tokenHash) }
            func decodeRow(_ row: PostgresRow) throws -> (UUID, String, String, Bool) { try row.decode((UUID, String, String, Bool).self) }
        }

        struct Touch: PreparedCommand {
            static let sql = "UPDATE device SET last_seen_at = $1 WHERE id = $2 AND last_seen_at <= $3"
            static let bindingDataTypes: [PostgresDataType] = [.timestamptz, .uuid, .timestamptz]
            var device: UUID, now: Date
            func makeBindings() throws -> PostgresBindings {
                try PostgresBindings(now, device, now.addingTimeInterval(-HearClearServer.Device.lastSeenResolution))
            }
        }

        struct Alias: PostgresPreparedStatement {
            static let sql = "SELECT venue_id FROM venue_alias WHERE id = $1"
            static let bindingDataTypes: [PostgresDataType] = [.text]
            var id: String
            func makeBindings() throws -> PostgresBindings { try PostgresBindings(id) }
            func decodeRow(_ row: PostgresRow) throws -> String { try row.decode(String.self) }
        }

        /// A venue's columns as `VenueColumns` decodes them.
        static let venueColumnList = "id, name, latitude, longitude, timezone, kind, owner_device_id"
        static let venueQuery = "SELECT \(venueColumnList) FROM venue WHERE id = $1"
        typealias VenueColumns = (String, String, Double, Double, String, VenueKind?, UUID?)

        struct Venue: PostgresPreparedStatement {
            static let sql = venueQuery
            static let bindingDataTypes: [PostgresDataType] = [.text]
            var id: String
            func makeBindings() throws -> PostgresBindings { try PostgresBindings(id) }
            func decodeRow(_ row: PostgresRow) throws -> VenueColumns { try row.decode(VenueColumns.self) }
        }

        /// The venue's row, locked until the transaction ends.
        struct LockedVenue: PostgresPreparedStatement {
            static let sql = venueQuery + " FOR UPDATE"
            static let bindingDataTypes: [PostgresDataType] = [.text]
            var id: String
            func makeBindings() throws -> PostgresBindings { try PostgresBindings(id) }
            func decodeRow(_ row: PostgresRow) throws -> VenueColumns { try row.decode(VenueColumns.self) }
        }

        struct StoredCheckIn: PostgresPreparedStatement {
            static let sql = "SELECT content_hash, device_id, venue_id, samples, dropped_samples, level_db, status FROM checkin WHERE id = $1"
            static let bindingDataTypes: [PostgresDataType] = [.uuid]
            var id: UUID
            func makeBindings() throws -> PostgresBindings { try PostgresBindings(id) }
            func decodeRow(_ row: PostgresRow) throws -> (Data, UUID, String, Int, Int, Double?, CheckInStatus) {
                try row.decode((Data, UUID, String, Int, Int, Double?, CheckInStatus).self)
            }
        }

        /// The columns of `checkin_hour`, in the order `StoreCheckIns` and `InsertHours` give them,
        /// and how many arrays carry its rows' values after the check-in and the venue.
        static let hourColumns = "checkin_seq, venue_id, weekday, hour, \(CellSums.columnList())"
        static let hourArrayCount = sumArrayTypes(counted: false).count

        /// A check-in's sums per local hour (`checkin_hour`), one row per element of the arrays.
        struct InsertHours: PreparedCommand {
            static let sql = """
                INSERT INTO checkin_hour (\(hourColumns))
                SELECT $1, $2, * FROM unnest(\(placeholders(from: 3, count: hourArrayCount)))
                """
            static let bindingDataTypes: [PostgresDataType] = [.int8, .text] + sumArrayTypes(counted: false)
            var checkIn: Int64, venueID: String, hours: [LocalHour: CellSums]
            func makeBindings() throws -> PostgresBindings {
                var bindings = try PostgresBindings(checkIn, venueID)
                try bindings.appendHours(hours)
                return bindings
            }
        }

        /// A venue's check-ins as the status rule sees them: all, or those with one home hour.
        struct StatusCandidates: PostgresPreparedStatement {
            static let sql = """
                SELECT c.seq, c.samples - c.dropped_samples, c.level_db, c.home_weekday, c.home_hour, c.status, c.marked_outlier, d.banned
                FROM checkin c JOIN device d ON d.id = c.device_id
                WHERE c.venue_id = $1 AND ($2::bigint IS NULL OR c.home_hour = $2)
                """
            static let bindingDataTypes: [PostgresDataType] = [.text, .int8]
            var venueID: String, homeHour: Int?
            func makeBindings() throws -> PostgresBindings { try PostgresBindings(nullable: venueID, homeHour) }
            func decodeRow(_ row: PostgresRow) throws -> StatusCandidate<Int64> {
                let (seq, kept, level, weekday, hour, status, marked, banned) = try row.decode((Int64, Int, Double?, Int, Int, CheckInStatus, Bool, Bool).self)
                return Self.candidate(seq, kept, level, weekday, hour, status, marked, banned)
            }
            /// A candidate from its row's columns, in the order of `sql`.
            static func candidate(
                _ seq: Int64, _ kept: Int, _ level: Double?, _ weekday: Int, _ hour: Int, _ status: CheckInStatus, _ marked: Bool, _ banned: Bool
            ) -> StatusCandidate<Int64> {
                StatusCandidate(
                    key: seq, keptSamples: kept, levelDB: level, home: LocalHour(weekday: weekday, hour: hour), status: status, markedOutlier: marked,
                    deviceBanned: banned)
            }
        }

        struct UpdateStatuses: PreparedCommand {
            static let sql = "UPDATE checkin c SET status = u.status FROM unnest($1, $2) AS u(seq, status) WHERE c.seq = u.seq"
            static let bindingDataTypes: [PostgresDataType] = [.int8Array, .textArray]
            var changes: [StatusChange<Int64>]
            func makeBindings() throws -> PostgresBindings { try PostgresBindings(changes.map(\.key), changes.map(\.to.rawValue)) }
        }

        /// The per-hour sums of a venue's check-ins, with what decides whether they count.
        struct Contributions: PostgresPreparedStatement {
            /// What a contribution is read from: `checkin_hour` as `h`, joined (`joins`) to its
            /// check-in as `c` and that check-in's device as `d`.
            static let columns = "h.checkin_seq, h.weekday, h.hour, c.status, d.banned, \(CellSums.columnList(of: "h"))"
            static let joins = "JOIN checkin c ON c.seq = h.checkin_seq JOIN device d ON d.id = c.device_id"
            static let sql = "SELECT \(columns) FROM checkin_hour h \(joins) WHERE h.venue_id = $1"
            static let bindingDataTypes: [PostgresDataType] = [.text]
            var venueID: String
            func makeBindings() throws -> PostgresBindings { try PostgresBindings(venueID) }
            func decodeRow(_ row: PostgresRow) throws -> HourContribution<Int64> { try Self.contribution(row) }

            /// The contribution in `columns`, from the row's column `first` on.
            static func contribution(_ row: PostgresRow, from first: Int = 0) throws -> HourContribution<Int64> {
                let cells = row.makeRandomAccess()
                return HourContribution(
                    checkIn: try cells[first].decode(Int64.self),
                    hour: LocalHour(weekday: try cells[first + 1].decode(Int.self), hour: try cells[first + 2].decode(Int.self)),
                    sums: try CellSums(cells, from: first + 5), status: try cells[first + 3].decode(CheckInStatus.self),
                    deviceBanned: try cells[first + 4].decode(Bool.self))
            }
        }

        /// The per-hour sums of some check-ins, of any venues.
        struct CheckInContributions: PostgresPreparedStatement {
            static let sql = "SELECT \(Contributions.columns) FROM checkin_hour h \(Contributions.joins) WHERE h.checkin_seq = ANY($1)"
            static let bindingDataTypes: [PostgresDataType] = [.int8Array]
            var checkIns: [Int64]
            func makeBindings() throws -> PostgresBindings { try PostgresBindings(checkIns) }
            func decodeRow(_ row: PostgresRow) throws -> HourContribution<Int64> { try Contributions.contribution(row) }
        }

        /// Every cell of a venue.
        struct Cells: PostgresPreparedStatement {
            static let sql = "SELECT weekday, hour, \(LoudnessAggregate.columns.joined(separator: ", ")) FROM loudness WHERE venue_id = $1"
            static let bindingDataTypes: [PostgresDataType] = [.text]
            var venueID: String
            func makeBindings() throws -> PostgresBindings { try PostgresBindings(venueID) }
            func decodeRow(_ row: PostgresRow) throws -> LoudnessAggregate { try Self.cell(row) }

            /// The cell in the columns of `sql`, from the row's column `first` on.
            static func cell(_ row: PostgresRow, from first: Int = 0) throws -> LoudnessAggregate {
                let cells = row.makeRandomAccess()
                return LoudnessAggregate(
                    weekday: try cells[first].decode(Int.self), hour: try cells[first + 1].decode(Int.self), checkins: try cells[first + 2].decode(Int.self),
                    sums: try CellSums(cells, from: first + 3), rounding: try cells[first + 3 + CellSums.columns.count].decode(Double.self))
            }
        }

        /// Venues' cells as they now are, over those stored.
        struct WriteCells: PreparedCommand {
            static let sql = """
                INSERT INTO loudness (venue_id, weekday, hour, \(LoudnessAggregate.columns.joined(separator: ", ")))
                SELECT * FROM unnest(\(placeholders(from: 1, count: 1 + cellArrayTypes.count)))
                ON CONFLICT (venue_id, weekday, hour) DO UPDATE SET \(LoudnessAggregate.columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
                """
            static let bindingDataTypes: [PostgresDataType] = [.textArray] + cellArrayTypes
            var cells: [(venueID: String, cell: LoudnessAggregate)]
            func makeBindings() throws -> PostgresBindings {
                var bindings = PostgresBindings()
                bindings.append(cells.map(\.venueID))
                try bindings.appendCells(cells.map(\.cell))
                return bindings
            }
        }

        struct Notify: PostgresPreparedStatement {
            static let sql = "SELECT pg_notify($1, payload) FROM unnest($2) AS payload"
            static let bindingDataTypes: [PostgresDataType] = [.text, .textArray]
            var channel: String, payloads: [String]
            func makeBindings() throws -> PostgresBindings { try PostgresBindings(channel, payloads) }
            func decodeRow(_ row: PostgresRow) {}
        }
    }

    /// `$from, $from+1, …`: `count` parameters.
    static func placeholders(from first: Int, count: Int) -> String {
        (first..<first + count).map { "$\($0)" }.joined(separator: ", ")
    }

    /// The types of the arrays `PostgresBindings.appendSums` binds; `counted`: with check-in counts.
    static func sumArrayTypes(counted: Bool) -> [PostgresDataType] {
        [.int8Array, .int8Array] + (counted ? [.int8Array] : []) + CellSums.postgresArrayTypes
    }

    /// The types of the arrays `PostgresBindings.appendCells` binds: a cell's sums and its rounding.
    static let cellArrayTypes = sumArrayTypes(counted: true) + [.float8Array]
}
