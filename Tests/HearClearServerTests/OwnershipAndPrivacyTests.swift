import Foundation
import GRDB
import HearClearCore
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestCluster
import Testing

@testable import HearClearServer

/// Who may change a venue, valid time zones, and a device taking its data back.
@Suite struct OwnershipAndPrivacyTests {
    // MARK: Time zones

    /// Zones Linux's `knownTimeZoneIdentifiers` lacks, though its tz database has them.
    @Test(arguments: StoreKind.allCases, ["Asia/Kolkata", "Etc/UTC", "US/Eastern", "Etc/GMT+5", "UTC", "Europe/Paris", "America/Argentina/Buenos_Aires"])
    func everyZoneOfTheTimeZoneDatabaseIsAccepted(store: StoreKind, zone: String) async throws {
        try await withApp(store: store) { client, _ in
            let token = try await client.registerDevice()
            let created = try await client.putVenue("v1", token: token, timezone: zone)
            #expect(created.status == .created, "\(zone): \(String(buffer: created.body))")
            #expect(try decode(Venue.self, created).timezone == zone)
        }
    }

    /// Was: refused ("is not a time zone of the tz database"), though the zone is; stored as the
    /// database spells it, so that one zone has one spelling.
    @Test(arguments: StoreKind.allCases, [
        ("europe/paris", "Europe/Paris"), ("AMERICA/ARGENTINA/BUENOS_AIRES", "America/Argentina/Buenos_Aires"), ("etc/gmt+5", "Etc/GMT+5"), ("utc", "UTC"),
    ])
    func aZoneInAnotherCaseIsStoredAsTheDatabaseSpellsIt(store: StoreKind, zone: (typed: String, spelled: String)) async throws {
        try await withApp(store: store) { client, _ in
            let token = try await client.registerDevice()
            let created = try await client.putVenue("v1", token: token, timezone: zone.typed)
            #expect(created.status == .created, "\(zone.typed): \(String(buffer: created.body))")
            #expect(try decode(Venue.self, created).timezone == zone.spelled)
        }
    }

    /// Was: "is not a time zone of the tz database, like Europe/Paris or Etc/UTC" for a typo of one.
    @Test func aMisspeltZoneIsAnsweredWithTheZoneItLikelyMeant() async throws {
        try await withApp(store: .sqlite) { client, _ in
            let token = try await client.registerDevice()
            for (typed, meant) in [("Europe/Londn", "Europe/London"), ("Eurpoe/Paris", "Europe/Paris"), ("america/new_yrok", "America/New_York")] {
                let refused = try await client.putVenue("v1", token: token, timezone: typed)
                #expect(refused.status == .unprocessableContent)
                #expect(try errorMessage(refused) == "timezone \"\(typed)\" is not a time zone of the tz database: did you mean \(meant)?")
            }
            for typed in ["GMT+5", "Mars/Olympus_Mons", "Europe/Atlantis", String(repeating: "Europe/", count: 40)] {
                let refused = try await client.putVenue("v1", token: token, timezone: typed)
                #expect(try errorMessage(refused).hasSuffix("is not a time zone of the tz database, like Europe/Paris or Etc/UTC"), "\(typed)")
            }
        }
        #expect(Validation.editDistance("", "abc") == 3 && Validation.editDistance("kitten", "sitting") == 3 && Validation.editDistance("ab", "") == 2)
    }

    @Test(arguments: StoreKind.allCases, ["Mars/Olympus_Mons", "GMT+5", "gmt+5", "", "../../etc/passwd", "europe/../europe/paris", "zone.tab", "posix"])
    func namesThatAreNotZonesAreRefused(store: StoreKind, zone: String) async throws {
        try await withApp(store: store) { client, database in
            let token = try await client.registerDevice()
            let refused = try await client.putVenue("v1", token: token, timezone: zone)
            #expect(refused.status == .unprocessableContent)
            #expect(try errorMessage(refused).contains("time zone"))
            #expect(try await database.count("venue") == 0)
        }
    }

    // MARK: Ownership

    @Test(arguments: StoreKind.allCases) func onlyTheDeviceThatCreatedAVenueMayChangeIt(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let owner = try await client.registerDevice()
            let stranger = try await client.registerDevice()
            #expect(try await client.putVenue("v1", token: owner, timezone: "Europe/Paris", name: "Chez Nous").status == .created)
            #expect(try await client.postCheckIn(makeCheckIn(venue: "v1", start: mondayEvening(weeksBefore: 0)), token: owner).status == .created)
            let before = try await client.execute(uri: "/api/v1/venues/v1/loudness", method: .get) { try decode(Loudness.self, $0) }

            // Renaming, moving and re-zoning by another device: 403, and nothing changes.
            let refused = try await client.putVenue("v1", token: stranger, timezone: "Asia/Tokyo", name: "Taken Over", latitude: 10, longitude: 10)
            #expect(refused.status == .forbidden)
            #expect(try errorMessage(refused).contains("only by the device that created it"))
            try await client.execute(uri: "/api/v1/venues/v1", method: .get) { response throws in
                let venue = try decode(Venue.self, response)
                #expect(venue.name == "Chez Nous" && venue.timezone == "Europe/Paris" && venue.latitude == -33.8688)
            }
            let after = try await client.execute(uri: "/api/v1/venues/v1/loudness", method: .get) { try decode(Loudness.self, $0) }
            #expect(before == after)
            #expect(try await database.count("venue_change") == 1)  // the creation only

            // The owner still may.
            #expect(try await client.putVenue("v1", token: owner, timezone: "Europe/Paris", name: "Chez Vous").status == .ok)
            #expect(try await database.count("venue_change") == 2)
        }
    }

    // MARK: Taking data back

    @Test(arguments: StoreKind.allCases) func aDeviceDeletesItselfItsCheckInsAndItsSamples(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let leaving = try await client.registerDevice()
            let staying = try await client.registerDevice()
            #expect(try await client.putVenue("v1", token: leaving, timezone: "UTC").status == .created)
            for week in 0..<3 {
                #expect(try await client.postCheckIn(makeCheckIn(venue: "v1", start: mondayEvening(weeksBefore: week), level: -40), token: leaving).status == .created)
            }
            #expect(try await client.postCheckIn(makeCheckIn(venue: "v1", start: mondayEvening(weeksBefore: 3), level: -50), token: staying).status == .created)
            let leavingID = try #require(try await database.string("SELECT owner_device_id FROM venue"))

            try await client.execute(uri: "/api/v1/devices/me", method: .delete, headers: bearer(leaving)) { response throws in
                #expect(response.status == .noContent)
            }
            #expect(try await database.count("device") == 1)
            #expect(try await database.count("checkin") == 1)
            #expect(try await database.storedSamples().count == 60)
            #expect(try await database.count("checkin_hour") == 1)
            // The aggregates are those of the remaining check-in alone (60 dB(A) at calibration 110).
            let overall = try await client.execute(uri: "/api/v1/venues/v1/loudness", method: .get) { try decode(Loudness.self, $0).overall }
            #expect(overall.checkins == 1 && overall.levelDB == 60.0)
            #expect(try await database.repository.verify().isEmpty)
            // The venue stays, without an owner; its history no longer names the device.
            #expect(try await database.int("SELECT COUNT(*) FROM venue WHERE owner_device_id IS NULL") == 1)
            let history = try await database.strings("SELECT actor || COALESCE(before, '') || COALESCE(after, '') FROM venue_change")
            #expect(history.count == 1 && !history.contains { $0.contains(leavingID) })

            // The token stops working.
            try await client.execute(uri: "/api/v1/devices/me", method: .delete, headers: bearer(leaving)) { response throws in
                #expect(response.status == .unauthorized)
            }
            #expect(try await client.postCheckIn(makeCheckIn(venue: "v1", start: mondayEvening(weeksBefore: 4)), token: leaving).status == .unauthorized)
        }
    }

    /// Public answers (venues, loudness, scale) carry neither device ids nor check-in times; API v2's
    /// cells carry the date of the newest check-in (`last_measured`), and only that.
    @Test(arguments: StoreKind.allCases) func publicAnswersCarryNoDeviceIdsNorCheckInTimes(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let token = try await client.registerDevice()
            #expect(try await client.putVenue("v1", token: token, timezone: "UTC").status == .created)
            let checkIn = makeCheckIn(venue: "v1", start: "2026-11-16T20:17:42Z")
            #expect(try await client.postCheckIn(checkIn, token: token).status == .created)
            let device = try #require(try await database.string("SELECT id FROM device"))
            for path in ["/api/v1/venues/v1", "/api/v1/venues/v1/loudness", "/api/v1/venues?q=Quiet", "/api/v1/venues?near=-33.8688,151.2093", "/api/v1/scale", "/api/v2/venues/v1/loudness", "/api/v2/venues/v1/quiet-times"] {
                try await client.execute(uri: path, method: .get) { response throws in
                    #expect(response.status == .ok, "\(path)")
                    let body = String(buffer: response.body)
                    #expect(!body.contains(device), "\(path) names the device")
                    #expect(!body.contains("20:17") && !body.contains("2026-11-16T") && !body.contains("17948602"), "\(path) carries a check-in time")
                    #expect(body.components(separatedBy: "2026-11-16").count - 1 == body.components(separatedBy: #""last_measured":"2026-11-16""#).count - 1, "\(path) carries a check-in date elsewhere than last_measured")
                    #expect(!body.contains(checkIn.id.wireString), "\(path) names the check-in")
                }
            }
        }
    }
}
