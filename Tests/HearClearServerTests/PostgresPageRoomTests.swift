import Foundation
import HearClearCore
import TestCluster
import Testing

@testable import HearClearServer

/// On PostgreSQL a changed row is a new version of it, written on its own page when it fits there
/// (no new index entries, no other page): the tables whose rows every upload changes — a venue's
/// cells, and stored check-ins whose status the outlier rule changes — leave room for it on each
/// page (migration 0014, docs/profiling.md, Ingest, step 29).
@Suite struct PostgresPageRoomTests {
    @Test(arguments: [("loudness", "checkins"), ("checkin", "status")])
    func aRowOnAPageAsFullAsItGetsChangesOnItsPage(table: String, column: String) async throws {
        let database = try await TemporaryDatabase(.postgres)
        let device = try await database.registerDevice()
        _ = try await database.repository.saveVenue(id: "v1", VenueUpsert(name: "Venue", latitude: 0, longitude: 0, timezone: "UTC"), by: device, at: Date())
        // Two days of hours: as many check-ins, and cells for each hour and their sums.
        let last = Timestamp.parse(mondayEvening(weeksBefore: 1))!
        for hour in 0..<48 {
            let checkIn = makeCheckIn(venue: "v1", start: Timestamp.format(last.addingTimeInterval(Double(-hour) * 3_600)))
            _ = try await database.repository.storeCheckIn(checkIn, contentHash: CheckInController.contentHash(checkIn), by: device, at: Date())
        }
        // Written again, each page as full as the table lets it be.
        try await database.execute("VACUUM FULL \(table)")
        #expect(try await database.int("SELECT count(DISTINCT (ctid::text::point)[0]) FROM \(table)") > 1)

        let page = try await database.string(
            "UPDATE \(table) SET \(column) = \(column) WHERE ctid = (SELECT ctid FROM \(table) ORDER BY ctid LIMIT 1) RETURNING (ctid::text::point)[0]")
        #expect(page == "0")
    }
}
