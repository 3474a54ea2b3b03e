import Foundation
import HearClearAnalysis
import HearClearCore
import Synchronization
import TestCluster
import Testing

@testable import HearClearServer

/// Uploads to a PostgreSQL store wait for the group being stored and are stored together; a group
/// stores what the same uploads stored one by one would, and a group that fails is stored again
/// one upload at a time.
struct PostgresGroupCommitTests {
    struct Refused: Error, Equatable { let venue: String }

    static func upload(_ checkIn: CheckIn, device: UUID = UUID()) -> PostgresGroupCommit.Upload {
        PostgresGroupCommit.Upload(
            checkIn: checkIn, contentHash: CheckInController.contentHash(checkIn), device: device, receivedAt: Date(), prepared: nil)
    }

    /// Uploads to `venues` stored through `commit` while a first upload's group is held by `store`
    /// until they all wait; the groups `store` was given, and each venue's outcome. `store` decides
    /// what a group gives (`refusing`), and holds the first group until let go.
    static func heldThenReleased(
        venues: [String], refusing refusal: @escaping @Sendable ([String]) -> (any Error)?
    ) async throws -> (groups: [[String]], outcomes: [String: Result<CheckInOutcome, any Error>]) {
        let commit = PostgresGroupCommit()
        let groups = Mutex<[[String]]>([])
        let (entered, enter) = AsyncStream<Void>.makeStream()
        let (released, release) = AsyncStream<Void>.makeStream()
        let store: PostgresGroupCommit.Store = { uploads in
            let venues = uploads.map(\.checkIn.venueID)
            let first = groups.withLock { groups in
                groups.append(venues)
                return groups.count == 1
            }
            if first {
                enter.yield()
                for await _ in released { break }
            }
            if let error = refusal(venues) { throw error }
            return uploads.map { .created(StoredCheckIn(id: $0.checkIn.id, venueID: $0.checkIn.venueID, samples: 0, droppedSamples: 0, levelDB: nil, status: .accepted)) }
        }
        async let first = commit.store(Self.upload(makeCheckIn(venue: "first", start: mondayEvening(weeksBefore: 1))), with: store)
        for await _ in entered { break }
        let outcomes = try await withThrowingTaskGroup(of: (String, Result<CheckInOutcome, any Error>).self) { tasks in
            for venue in venues {
                tasks.addTask {
                    let checkIn = makeCheckIn(venue: venue, start: mondayEvening(weeksBefore: 1))
                    do { return (venue, .success(try await commit.store(Self.upload(checkIn), with: store))) } catch { return (venue, .failure(error)) }
                }
            }
            // Each waits behind the first group: all are queued before it is let go.
            while commit.waitingCount < venues.count { await Task.yield() }
            release.yield()
            return try await tasks.reduce(into: [String: Result<CheckInOutcome, any Error>]()) { $0[$1.0] = $1.1 }
        }
        _ = try await first
        return (groups.withLock { $0 }, outcomes)
    }

    @Test func uploadsWaitingTogetherAreOneGroupAndOnlyTheFaultyOneFails() async throws {
        let venues = ["a", "b", "faulty", "c"]
        let (groups, outcomes) = try await Self.heldThenReleased(venues: venues) { $0.contains("faulty") ? Refused(venue: "faulty") : nil }
        // The first alone; the four waiting as one group, which fails; then each of them alone.
        #expect(groups.count == 6)
        #expect(groups.dropFirst().first.map(Set.init) == Set(venues))
        #expect(groups.dropFirst(2).allSatisfy { $0.count == 1 })
        for venue in venues {
            if venue == "faulty" {
                #expect(throws: Refused(venue: "faulty")) { try outcomes[venue]?.get() }
            } else {
                guard case .created(let stored)? = try outcomes[venue]?.get() else { Issue.record("\(venue) was not stored"); continue }
                #expect(stored.venueID == venue)
            }
        }
    }

    @Test func aGroupTheUnreachableDatabaseFailsIsNotTriedAgainOneByOne() async throws {
        let venues = ["a", "b", "c"]
        let (groups, outcomes) = try await Self.heldThenReleased(venues: venues) { $0.count > 1 ? StoreUnavailable(reason: "gone") : nil }
        #expect(groups.count == 2)
        for venue in venues {
            #expect(throws: StoreUnavailable.self) { try outcomes[venue]?.get() }
        }
    }

    /// Stores `uploads` in `database`, as one group or one after the other.
    static func store(_ uploads: [CheckIn], in database: TemporaryDatabase, grouped: Bool, device: UUID) async throws -> [CheckInOutcome] {
        let repository = try #require(database.repository as? PostgresRepository)
        if grouped { return try await repository.storeCheckIns(uploads.map { upload($0, device: device) }) }
        var outcomes: [CheckInOutcome] = []
        for checkIn in uploads {
            outcomes.append(try await repository.storeCheckIn(checkIn, contentHash: CheckInController.contentHash(checkIn), by: device, at: Date()))
        }
        return outcomes
    }

    static func status(_ outcome: CheckInOutcome) -> String {
        switch outcome {
        case .created(let stored): "created \(stored.status.rawValue)"
        case .replayed(let stored): "replayed \(stored.status.rawValue)"
        case .conflict: "conflict"
        case .unknownVenue: "unknown venue"
        }
    }

    @Test func aGroupStoresWhatTheSameUploadsStoreOneByOne() async throws {
        let quiet = (1...5).map { makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: $0), level: -50) }
        let loud = makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: 6), level: -30)
        var conflicting = makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: 7), level: -50)
        conflicting.id = quiet[1].id
        let first =
            quiet + [
                loud, makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: 8), seconds: 10), makeCheckIn(venue: "merged", start: mondayEvening(weeksBefore: 1), level: -40),
                makeCheckIn(venue: "nowhere", start: mondayEvening(weeksBefore: 1)), quiet[0], conflicting,
            ]
        // The same at venue-2, two hours later (apart from "merged"'s): both venues' cells are summed
        // again in the second group, each read and write one statement for both.
        let later = { (weeks: Int, level: Double) in makeCheckIn(venue: "venue-2", start: Timestamp.format(Timestamp.parse(mondayEvening(weeksBefore: weeks))! + 7_200), level: level) }
        let otherVenue = (1...5).map { later($0, -50) } + [later(6, -30)]
        // Six loud ones more: the first loud one counts again, and cells are summed again.
        let second = (9...14).flatMap { [makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: $0), level: -30), later($0, -30)] }

        var results: [(outcomes: [String], statuses: [String], cells: [LoudnessAggregate])] = []
        for grouped in [true, false] {
            let database = try await TemporaryDatabase(.postgres)
            let device = try await database.registerDevice()
            for venue in ["venue-1", "venue-2"] {
                _ = try await database.repository.saveVenue(
                    id: venue, VenueUpsert(name: venue, latitude: 0, longitude: 0, timezone: "UTC"), by: device, at: Date())
            }
            // "merged" is venue-2's id of old: its check-ins count there.
            try await database.execute("INSERT INTO venue_alias (id, venue_id) VALUES ('merged', 'venue-2')")
            var outcomes = try await Self.store(first + otherVenue, in: database, grouped: grouped, device: device)
            outcomes += try await Self.store(second, in: database, grouped: grouped, device: device)
            var statuses: [String] = []
            for checkIn in first + otherVenue + second { statuses.append(try await database.status(of: checkIn.id)?.rawValue ?? "none") }
            var cells: [LoudnessAggregate] = []
            for venue in ["venue-1", "venue-2"] { cells += try #require(try await database.repository.loudness(venueID: venue)) }
            #expect(try await database.repository.verify() == [])
            results.append((outcomes.map(Self.status), statuses, cells.sorted { ($0.cell, $0.checkins) < ($1.cell, $1.checkins) }))
        }
        let (grouped, oneByOne) = (results[0], results[1])
        #expect(grouped.outcomes.prefix(first.count) == [
            "created accepted", "created accepted", "created accepted", "created accepted", "created accepted", "created outlier", "created too_short",
            "created accepted", "unknown venue", "replayed accepted", "conflict",
        ])
        #expect(oneByOne.statuses == grouped.statuses)
        #expect(grouped.statuses[first.firstIndex { $0.id == loud.id }!] == "accepted")
        #expect(grouped.statuses[first.count + otherVenue.count - 1] == "accepted")
        #expect(oneByOne.cells.map(\.cell) == grouped.cells.map(\.cell))
        for (one, group) in zip(oneByOne.cells, grouped.cells) {
            #expect(one.checkins == group.checkins && one.samples == group.samples)
            #expect(abs(one.sums.energy - group.sums.energy) <= 1e-9 * one.sums.energy)
        }
    }
}
