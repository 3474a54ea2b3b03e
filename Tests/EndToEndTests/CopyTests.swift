import Foundation
import HearClearCore
import LoopbackHTTP
import TestCluster
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `hearclear-server copy`: a SQLite deployment moved to PostgreSQL answers exactly as before.
@Suite struct CopyTests {
    let folder: URL

    init() throws {
        folder = try temporaryFolder()
    }

    func send(_ method: String, _ url: URL, token: String? = nil, body: Data? = nil) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// The same facts read from either store: every statement is valid SQL in both.
    static let facts = [
        "SELECT id FROM device WHERE banned ORDER BY id",
        "SELECT id, status, marked_outlier FROM checkin WHERE marked_outlier ORDER BY id",
        "SELECT id, venue_id, status, samples, dropped_samples, calibration_source FROM checkin ORDER BY id",
        "SELECT id, classes_model FROM checkin WHERE classes_model IS NOT NULL ORDER BY id",
        "SELECT model, offset_db FROM calibration ORDER BY model",
        "SELECT id, venue_id FROM venue_alias ORDER BY id",
        "SELECT venue_id, actor, action FROM venue_change ORDER BY seq",
        "SELECT id, owner_device_id FROM venue ORDER BY id",
        // The samples blobs travel as they are: the same length, and absent for the same check-ins.
        "SELECT id, samples, length(sample_columns) FROM checkin ORDER BY id",
        "SELECT COUNT(*) FROM event",
        "SELECT COUNT(*) FROM checkin_hour",
        "SELECT COUNT(*) FROM loudness",
    ]

    @Test func copyMovesADeploymentToPostgreSQLAndEveryAnswerStaysTheSame() async throws {
        let source = folder.appendingPathComponent("deployment.sqlite").path
        #expect(try await Executable.run("hearclear-server", ["seed", "--demo", "--database", source]).status == 0)

        // A device of our own, whose token must keep working after the move, and its check-in.
        var server = try await ServerProcess(database: source)
        let credentials = try JSONDecoder().decode(
            DeviceCredentials.self,
            from: try await send("POST", server.url.appendingPathComponent("api/v1/devices"), body: Data(#"{"model": "Moved", "platform": "linux"}"#.utf8)).body)
        let venue = try JSONEncoder().encode(VenueUpsert(name: "Moved Bar", latitude: 51.5, longitude: -0.1, timezone: "Europe/London"))
        #expect(try await send("PUT", server.url.appendingPathComponent("api/v1/venues/moved-bar"), token: credentials.token, body: venue).status == 201)
        let checkIn = try JSONEncoder().encode(
            CheckIn(
                id: UUID(), venueID: "moved-bar", startedAt: Date(timeIntervalSince1970: 1_790_000_000), calibrationDB: 100,
                samples: (0..<60).map { Sample(t: Double($0), avg: -40 - Double($0 % 5), peak: -30) }))
        let receipt = try await send("POST", server.url.appendingPathComponent("api/v1/checkins"), token: credentials.token, body: checkIn)
        #expect(receipt.status == 201)
        await server.stop()

        // What operators do: a ban, a mark, a calibration, a merged venue id; rebuild applies them.
        _ = try await sqlite(source, "UPDATE device SET banned = 1 WHERE id = (SELECT id FROM device WHERE model <> 'Moved' ORDER BY id LIMIT 1)")
        _ = try await sqlite(source, "UPDATE checkin SET marked_outlier = 1 WHERE seq = (SELECT MIN(seq) FROM checkin WHERE status = 'accepted')")
        _ = try await sqlite(source, "INSERT INTO calibration (model, offset_db, updated_at) VALUES ('Moved', 101.5, 1790000000.25)")
        _ = try await sqlite(source, "INSERT INTO venue_alias (id, venue_id) VALUES ('old-moved-bar', 'moved-bar')")
        // Check-ins whose client named the model that classified them, and those whose did not.
        _ = try await sqlite(source, "UPDATE checkin SET classes_model = 3 + seq % 2 WHERE seq % 3 = 0")
        #expect(try await Executable.run("hearclear-server", ["rebuild", "--database", source]).status == 0)
        #expect(try await Executable.run("hearclear-server", ["verify", "--database", source]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: source))

        let target = try await PostgresCluster.newDatabase()
        let copied = try await Executable.run("hearclear-server", ["copy", "--from", source, "--to", target])
        #expect(copied.status == 0, "\(copied.output)\(copied.errors)")
        #expect(copied.output.contains("verify ok"), "\(copied.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: source)) == before, "the source was modified")

        for fact in Self.facts {
            let fromSQLite = try await sqlite(source, fact)
            let fromPostgres = try await PostgresCluster.psql(target, fact).joined(separator: "\n")
            #expect(normalised(fromSQLite) == normalised(fromPostgres), "\(fact)")
        }

        // The same answers, byte for byte, from a server on each store.
        server = try await ServerProcess(database: source)
        let moved = try await ServerProcess(database: target, logFolder: folder)
        let venues = try await sqlite(source, "SELECT id FROM venue ORDER BY id").split(separator: "\n").map(String.init) + ["old-moved-bar"]
        #expect(venues.count > 30)
        for id in venues {
            for path in ["api/v1/venues/\(id)", "api/v1/venues/\(id)/loudness"] {
                let expected = try await send("GET", server.url.appendingPathComponent(path))
                let answer = try await send("GET", moved.url.appendingPathComponent(path))
                #expect(answer.status == expected.status && answer.body == expected.body, "\(path)")
            }
        }
        // The token works on PostgreSQL: a retry is recognised with the same receipt, a new check-in is stored.
        let replay = try await send("POST", moved.url.appendingPathComponent("api/v1/checkins"), token: credentials.token, body: checkIn)
        #expect(replay.status == 200 && replay.body == receipt.body)
        let next = try JSONEncoder().encode(
            CheckIn(
                id: UUID(), venueID: "moved-bar", startedAt: Date(timeIntervalSince1970: 1_790_003_600), calibrationDB: 100,
                samples: (0..<60).map { Sample(t: Double($0), avg: -41, peak: -30) }))
        #expect(try await send("POST", moved.url.appendingPathComponent("api/v1/checkins"), token: credentials.token, body: next).status == 201)
        await moved.stop()

        // A target with data is refused, and left as it was; --force empties it first.
        let refused = try await Executable.run("hearclear-server", ["copy", "--from", source, "--to", target])
        #expect(refused.status != 0)
        #expect(refused.errors.contains("the target is not empty"), "\(refused.errors)")
        #expect(try await PostgresCluster.psql(target, "SELECT COUNT(*) FROM checkin WHERE venue_id = 'moved-bar'") == ["2"])
        let forced = try await Executable.run("hearclear-server", ["copy", "--from", source, "--to", target, "--force"])
        #expect(forced.status == 0, "\(forced.errors)")
        #expect(try await PostgresCluster.psql(target, "SELECT COUNT(*) FROM checkin WHERE venue_id = 'moved-bar'") == ["1"])
    }

    @Test func copyRefusesWhatItCannotCopy() async throws {
        let target = try await PostgresCluster.newDatabase()
        let missing = try await Executable.run("hearclear-server", ["copy", "--from", folder.appendingPathComponent("none.sqlite").path, "--to", target])
        #expect(missing.status != 0 && missing.errors.contains("none.sqlite does not exist"), "\(missing.errors)")
        let notPostgres = try await Executable.run("hearclear-server", ["copy", "--from", "a.sqlite", "--to", "b.sqlite"])
        #expect(notPostgres.status != 0 && notPostgres.errors.contains("--to must be a postgres:// URL"), "\(notPostgres.errors)")
    }

    /// The shells print booleans and numbers alike once SQLite's 1 is PostgreSQL's t.
    func normalised(_ text: String) -> String {
        text.split(separator: "\n").map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).map { $0 == "1" || $0 == "t" ? "true" : $0 == "0" || $0 == "f" ? "false" : String($0) }
                .joined(separator: "|")
        }.joined(separator: "\n")
    }
}
