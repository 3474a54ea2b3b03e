import CompressNIO
import Foundation
import GRDB
import HearClearAnalysis
import HearClearCore
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import TestCluster
import Testing

@testable import HearClearServer

/// A migrated, empty store of either kind, removed at deinit: a SQLite file in its own temporary
/// folder, or a database of its own in the PostgreSQL cluster `make test` starts
/// (`HEARCLEAR_TEST_POSTGRES`, a URL of that cluster's `postgres` database).
final class TemporaryDatabase: Sendable {
    let kind: StoreKind
    let repository: any MaintainedStore
    var changes: VenueChangeFeed { opened.changes }
    let opened: OpenedStore
    private let folder: URL?
    /// The PostgreSQL database's URL; nil for SQLite.
    let url: String?
    /// Where it is, to open it a second time.
    let location: DatabaseLocation

    init(_ kind: StoreKind = .sqlite) async throws {
        self.kind = kind
        switch kind {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearclear-tests-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            self.folder = folder
            url = nil
            location = .sqlite(path: folder.appendingPathComponent("test.sqlite").path)
            opened = try await OpenedStore.open(location, logger: quietLogger)
        case .postgres:
            let url = try await PostgresCluster.newDatabase()
            self.url = url
            folder = nil
            location = .postgres(try PostgresAddress(url: url))
            opened = try await OpenedStore.open(location, logger: quietLogger)
        }
        repository = opened.store
    }

    deinit {
        opened.close()
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// Runs SQL written for both stores (booleans as TRUE/FALSE) and returns the first column of
    /// each row as text.
    func strings(_ sql: String) async throws -> [String] {
        if let pool = (repository as? SQLiteRepository)?.pool {
            return try await pool.write { db in
                try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.first.map { $0.isNull ? "" : String(describing: $0.storage.value ?? "") } ?? "" }
            }
        }
        guard let url else { return [] }
        return try await PostgresCluster.psql(url, sql)
    }

    func string(_ sql: String) async throws -> String? { try await strings(sql).first }

    func int(_ sql: String) async throws -> Int { Int(try await string(sql) ?? "") ?? -1 }

    func execute(_ sql: String) async throws { _ = try await strings(sql) }

    /// A blob literal in this store's SQL.
    func blob(_ data: Data) -> String {
        let hex = data.map { String(format: "%02x", $0) }.joined()
        return kind == .sqlite ? "x'\(hex)'" : "'\\x\(hex)'::bytea"
    }

    /// Every check-in's stored samples with their dropped flags, check-in after check-in (by
    /// `seq`), decoded from the blobs; pruned check-ins have none.
    func storedSamples() async throws -> [(sample: Sample, dropped: Bool)] {
        try await strings(
            kind == .sqlite
                ? "SELECT id || ' ' || interval_s || ' ' || hex(sample_columns) FROM checkin WHERE sample_columns IS NOT NULL ORDER BY seq"
                : "SELECT id || ' ' || interval_s || ' ' || encode(sample_columns, 'hex') FROM checkin WHERE sample_columns IS NOT NULL ORDER BY seq"
        ).flatMap { line -> [(sample: Sample, dropped: Bool)] in
            let fields = line.split(separator: " ")
            let columns = try SampleColumns.stored(Data(hexDigits: fields[2]), intervalS: Double(fields[1])!, checkIn: String(fields[0]))!
            return zip(columns.samples, columns.dropped).map { ($0, $1) }
        }
    }

    /// Changes a check-in's stored samples (or its dropped flags) behind the store's back.
    func tamperWithSamples(of checkIn: UUID, _ change: (inout SampleColumns) -> Void) async throws {
        let line = try #require(
            try await string(
                kind == .sqlite
                    ? "SELECT interval_s || ' ' || hex(sample_columns) FROM checkin WHERE id = '\(checkIn.wireString)'"
                    : "SELECT interval_s || ' ' || encode(sample_columns, 'hex') FROM checkin WHERE id = '\(checkIn.wireString)'"))
        let fields = line.split(separator: " ")
        let interval = Double(fields[0])!
        var columns = try SampleColumns(decoding: Data(hexDigits: fields[1]), intervalS: interval)
        change(&columns)
        try await execute("UPDATE checkin SET sample_columns = \(blob(columns.encoded(intervalS: interval))) WHERE id = '\(checkIn.wireString)'")
    }

    func registerDevice(model: String = "Test Mic") async throws -> UUID {
        try await repository.registerDevice(
            DeviceRegistration(model: model, platform: "linux"), tokenHash: DeviceToken.hash(UUID().uuidString), at: Date())
    }

    func ban(_ device: UUID) async throws {
        try await execute("UPDATE device SET banned = TRUE WHERE id = '\(device.wireString)'")
    }

    func count(_ table: String) async throws -> Int {
        try await int("SELECT COUNT(*) FROM \(table)")
    }

    func status(of checkIn: UUID) async throws -> CheckInStatus? {
        try await string("SELECT status FROM checkin WHERE id = '\(checkIn.wireString)'").flatMap(CheckInStatus.init(rawValue:))
    }
}

/// The routers' log in tests: above every level they log at, so that `make test` prints test results only.
let quietLogger: Logger = {
    var logger = Logger(label: "tests")
    logger.logLevel = .critical
    return logger
}()

/// The API's router on a temporary database, driven through HummingbirdTesting.
func withApp(
    store: StoreKind = .sqlite, settings: ServerSettings = ServerSettings(),
    _ test: @Sendable (any TestClientProtocol, TemporaryDatabase) async throws -> Void
) async throws {
    let database = try await TemporaryDatabase(store)
    let app = Application(router: try await buildRouter(store: database.opened, settings: settings, logger: quietLogger), logger: quietLogger)
    try await app.test(.router) { client in try await test(client, database) }
}

/// Builds check-ins: `seconds` samples around `level` dBFS (±0.5 dB, so spike windows are not flat).
func makeCheckIn(
    venue: String, start: String, seconds: Int = 60, level: Double = -50, calibration: Double? = 110,
    id: UUID = UUID()
) -> CheckIn {
    CheckIn(
        id: id, venueID: venue, startedAt: Timestamp.parse(start)!, calibrationDB: calibration,
        samples: (0..<seconds).map { second in
            let avg = level + (second.isMultiple(of: 2) ? 0.5 : -0.5)
            return Sample(t: Double(second), avg: avg, peak: min(0, avg + 12))
        })
}

/// 20:00 UTC on Monday 2026-11-16, or on the Monday `weeks` weeks before: the same local
/// weekday-hour each time, so the check-ins are compared with each other.
func mondayEvening(weeksBefore weeks: Int) -> String {
    Timestamp.format(Timestamp.parse("2026-11-16T20:00:00Z")!.addingTimeInterval(Double(-weeks) * 7 * 86_400))
}

func json(_ value: some Encodable) throws -> ByteBuffer {
    ByteBuffer(data: try JSONEncoder().encode(value))
}

func gzip(_ buffer: ByteBuffer) throws -> ByteBuffer {
    var buffer = buffer
    return try buffer.compress(with: .gzip())
}

func decode<Value: Decodable>(_ type: Value.Type, _ response: TestResponse) throws -> Value {
    var body = response.body
    if response.headers[.contentEncoding] == "gzip" {
        body = try body.decompress(with: .gzip())
    }
    return try JSONDecoder().decode(type, from: Data(buffer: body))
}

func errorMessage(_ response: TestResponse) throws -> String {
    try decode(APIErrorBody.self, response).error.message
}

let jsonHeaders: HTTPFields = [.contentType: "application/json"]

func bearer(_ token: String) -> HTTPFields {
    [.contentType: "application/json", .authorization: "Bearer \(token)"]
}

extension TestClientProtocol {
    /// Registers a device through the API and returns its token.
    func registerDevice(model: String = "Test Mic") async throws -> String {
        try await execute(
            uri: "/api/v1/devices", method: .post, headers: jsonHeaders,
            body: try json(DeviceRegistration(model: model, platform: "linux"))
        ) { response throws in
            try decode(DeviceCredentials.self, response).token
        }
    }

    func putVenue(
        _ id: String, token: String, timezone: String = "UTC", name: String = "The Quiet Table", latitude: Double = -33.8688, longitude: Double = 151.2093,
        kind: VenueKind? = nil
    ) async throws -> TestResponse {
        try await execute(
            uri: "/api/v1/venues/\(id)", method: .put, headers: bearer(token),
            body: try json(VenueUpsert(name: name, latitude: latitude, longitude: longitude, timezone: timezone, kind: kind)))
    }

    func postCheckIn(_ checkIn: CheckIn, token: String) async throws -> TestResponse {
        try await execute(uri: "/api/v1/checkins", method: .post, headers: bearer(token), body: try json(checkIn))
    }
}
