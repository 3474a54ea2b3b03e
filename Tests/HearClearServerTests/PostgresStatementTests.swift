import Foundation
import HearClearAnalysis
import HearClearCore
import PostgresNIO
import TestCluster
import Testing

@testable import HearClearServer

/// The store's prepared statements are parsed once per connection, with the parameter types of
/// their first execution unless they spell them out: a statement first run with NULL for an
/// optional parameter must still run with a value next, and the other way round.
@Suite struct PostgresStatementTests {
    static let venue = "venue-1"
    /// Monday 20:00 UTC, where `mondayEvening` places the check-ins.
    static let home = LocalHour(weekday: 0, hour: 20)

    /// Candidates, contributions and cells of the whole venue (the optional parameters NULL).
    func wholeVenue(on connection: PostgresConnection) async throws -> [Int] {
        [
            try await PostgresRepository.statusCandidates(venueID: Self.venue, on: connection, logger: quietLogger).count,
            try await PostgresRepository.contributions(venueID: Self.venue, on: connection, logger: quietLogger).count,
            try await PostgresRepository.cells(of: Self.venue, on: connection, logger: quietLogger).count,
        ]
    }

    /// The same for one home hour, one check-in and one cell.
    func oneHour(checkIn: Int64, on connection: PostgresConnection) async throws -> [Int] {
        [
            try await PostgresRepository.statusCandidates(venueID: Self.venue, homeHour: Self.home.hour, on: connection, logger: quietLogger).count,
            try await PostgresRepository.contributions(of: [checkIn], on: connection, logger: quietLogger).count,
            try await PostgresRepository.cells(at: [(Self.venue, Self.home)], on: connection, logger: quietLogger)[Self.venue]?.count ?? 0,
        ]
    }

    @Test func optionalParametersWorkWhicheverCameFirstOnAConnection() async throws {
        let database = try await TemporaryDatabase(.postgres)
        let device = try await database.registerDevice()
        _ = try await database.repository.saveVenue(
            id: Self.venue, VenueUpsert(name: "Venue", latitude: 0, longitude: 0, timezone: "UTC"), by: device, at: Date())
        for week in 1...2 {
            let checkIn = makeCheckIn(venue: Self.venue, start: mondayEvening(weeksBefore: week))
            _ = try await database.repository.storeCheckIn(checkIn, contentHash: CheckInController.contentHash(checkIn), by: device, at: Date())
        }
        let first = try #require(Int64(try await database.string("SELECT min(seq) FROM checkin") ?? ""))
        let address = try PostgresAddress(url: try #require(database.url))

        for nullFirst in [true, false] {
            // A client of its own with one connection: each statement is prepared on it by its first call.
            let client = PostgresClient(configuration: address.clientConfiguration(maximumConnections: 1))
            let running = Task { await client.run() }
            defer { running.cancel() }
            let (whole, one) = try await client.withConnection { connection -> ([Int], [Int]) in
                if nullFirst {
                    let whole = try await wholeVenue(on: connection)
                    return (whole, try await oneHour(checkIn: first, on: connection))
                }
                let one = try await oneHour(checkIn: first, on: connection)
                return (try await wholeVenue(on: connection), one)
            }
            // Two check-ins in one hour: their hour, that hour on every day, the weekday, the week.
            #expect(whole == [2, 2, 4], "NULL first: \(nullFirst)")
            #expect(one == [2, 1, 1], "NULL first: \(nullFirst)")
        }
    }

    /// The pool that stores uploads plans each of its statements once per connection: by default
    /// PostgreSQL planned every run of a statement that takes an array, 15 % of its time for a
    /// group of uploads at 10⁶ stored check-ins (docs/profiling.md, Ingest, step 32). Any statement
    /// run fewer than six times on a connection would have had a plan of its own for each run.
    @Test func uploadsArePlannedOncePerConnection() async throws {
        let database = try await TemporaryDatabase(.postgres)
        let repository = try #require(database.repository as? PostgresRepository)
        let device = try await database.registerDevice()
        _ = try await repository.saveVenue(id: Self.venue, VenueUpsert(name: "Venue", latitude: 0, longitude: 0, timezone: "UTC"), by: device, at: Date())
        // One at a time, each its own group, at one home hour: the status rule has references, so
        // statuses change and cells are summed again, as at a venue with many check-ins.
        for (week, level) in zip(1...8, [-40.0, -41, -39, -40, -42, -38, -40, -10]) {
            let checkIn = makeCheckIn(venue: Self.venue, start: mondayEvening(weeksBefore: week), level: level)
            _ = try await repository.storeCheckIn(checkIn, contentHash: CheckInController.contentHash(checkIn), by: device, at: Date())
        }
        #expect(try await database.string("SELECT count(*) FROM checkin WHERE status = 'outlier'") == "1")
        let (mode, custom, generic) = try await repository.transaction(on: repository.uploadClient) { connection in
            try await connection.query(
                "SELECT current_setting('plan_cache_mode'), coalesce(sum(custom_plans), 0)::bigint, coalesce(sum(generic_plans), 0)::bigint FROM pg_prepared_statements",
                logger: quietLogger
            ).decode((String, Int, Int).self).first { _ in true } ?? ("", -1, -1)
        }
        #expect(mode == "force_generic_plan")
        #expect(custom == 0)
        #expect(generic > 0, "the statements were prepared on the other connection of the pool")
    }
}
