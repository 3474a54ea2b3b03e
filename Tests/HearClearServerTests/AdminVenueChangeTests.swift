import Foundation
import HearClearCore
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestCluster
import Testing

@testable import HearClearServer

/// Operators correct venues: edit any, give one to another device, merge duplicates, delete a device.
extension AdminTests {
    @Test(arguments: StoreKind.allCases) func anOperatorEditsAnyVenueAndGivesItAwayAndTheHistorySaysWhoDidWhat(store: StoreKind) async throws {
        try await withAdmin(store) { client, database in
            let (token, _) = try await populate(client)
            let newOwner = try await client.registerDevice(model: "Other Mic")
            let newOwnerID = try #require(try await database.string("SELECT id FROM device WHERE model = 'Other Mic'"))
            let (cookie, csrf) = try await session(client, page: "/admin/venues/v1")

            let edited = try await post(
                client, "/admin/venues/v1/edit", form: "csrf=\(csrf)&name=The+Loud+Table&latitude=-33.87&longitude=151.21&timezone=Asia%2FKolkata", cookie: cookie)
            #expect(edited.status == .seeOther || edited.status == .found, "\(String(buffer: edited.body))")
            try await client.execute(uri: "/api/v1/venues/v1", method: .get) { response throws in
                let venue = try decode(Venue.self, response)
                #expect(venue.name == "The Loud Table" && venue.timezone == "Asia/Kolkata" && venue.latitude == -33.87)
            }
            // Mondays 20:00 UTC are Tuesdays 01:30 in Kolkata: the check-ins moved with the zone.
            let loudness = try await client.execute(uri: "/api/v1/venues/v1/loudness", method: .get) { try decode(Loudness.self, $0) }
            #expect(loudness.grid[1].hours[1].checkins == 6 && loudness.grid[0].hours[20].checkins == 0)

            let refused = try await post(client, "/admin/venues/v1/edit", form: "csrf=\(csrf)&name=x&latitude=0&longitude=0&timezone=Mars%2FBase", cookie: cookie)
            #expect(refused.status == .unprocessableContent)

            #expect(try await post(client, "/admin/venues/v1/transfer", form: "csrf=\(csrf)&device=\(UUID().uuidString)", cookie: cookie).status == .unprocessableContent)
            #expect(try await post(client, "/admin/venues/v1/transfer", form: "csrf=\(csrf)&device=\(newOwnerID)", cookie: cookie).status != .unprocessableContent)
            #expect(try await client.putVenue("v1", token: token, timezone: "UTC").status == .forbidden)
            #expect(try await client.putVenue("v1", token: newOwner, timezone: "UTC", name: "Mine Now").status == .ok)

            let page = String(buffer: try await get(client, "/admin/venues/v1", cookie: cookie).body)
            #expect(page.contains("<h2>History</h2>"))
            #expect(page.contains("name “The Loud Table” → “Mine Now”; place -33.87, 151.21 → -33.8688, 151.2093; time zone Asia/Kolkata → UTC"))
            #expect(page.contains("owner \(try #require(try await database.string("SELECT id FROM device WHERE model = 'Test Mic'"))) → \(newOwnerID)"))
            #expect(page.contains("device:\(newOwnerID)"))
            #expect(page.contains("<td>admin</td>"))
            #expect(page.contains("created “The Quiet Table”"))
            #expect(try await database.repository.verify().isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func mergingADuplicateMovesItsCheckInsAndItsIdLeadsToTheVenueKept(store: StoreKind) async throws {
        try await withAdmin(store) { client, database in
            let (token, _) = try await populate(client)
            #expect(try await client.putVenue("dup", token: token, timezone: "UTC", name: "The Quiet Table (again)").status == .created)
            #expect(try await client.postCheckIn(makeCheckIn(venue: "dup", start: mondayEvening(weeksBefore: 7)), token: token).status == .created)
            let (cookie, csrf) = try await session(client, page: "/admin/venues/dup")

            #expect(try await post(client, "/admin/venues/dup/merge", form: "csrf=\(csrf)&into=dup", cookie: cookie).status == .unprocessableContent)
            #expect(try await post(client, "/admin/venues/dup/merge", form: "csrf=\(csrf)&into=nowhere", cookie: cookie).status == .unprocessableContent)
            let merged = try await post(client, "/admin/venues/dup/merge", form: "csrf=\(csrf)&into=v1", cookie: cookie)
            #expect(merged.headers[.location] == "/admin/venues/v1")

            // 7 check-ins of v1 (one an outlier) and the one of dup: 7 usable.
            #expect(try await overall(client)?.checkins == 7)
            try await client.execute(uri: "/api/v1/venues/dup", method: .get) { response throws in
                #expect(response.status == .permanentRedirect)
                #expect(response.headers[.location] == "/api/v1/venues/v1")
                #expect(try errorMessage(response) == "venue dup was merged into v1")
            }
            try await client.execute(uri: "/api/v1/venues/dup/loudness", method: .get) { response throws in
                #expect(response.status == .permanentRedirect)
                #expect(response.headers[.location] == "/api/v1/venues/v1/loudness")
            }
            #expect(try await client.putVenue("dup", token: token).status == .permanentRedirect)
            // A check-in measured offline for the old id lands on the venue kept.
            let late = makeCheckIn(venue: "dup", start: mondayEvening(weeksBefore: 8))
            try await client.execute(uri: "/api/v1/checkins", method: .post, headers: bearer(token), body: try json(late)) { response throws in
                #expect(response.status == .created)
                #expect(try decode(CheckInReceipt.self, response).venueID == "v1")
            }
            #expect(try await overall(client)?.checkins == 8)
            #expect(try await get(client, "/admin/venues/dup", cookie: cookie).headers[.location] == "/admin/venues/v1")
            let page = String(buffer: try await get(client, "/admin/venues/v1", cookie: cookie).body)
            #expect(page.contains("merged venue dup (“The Quiet Table (again)”) into this one"))
            #expect(try await database.count("venue") == 1)
            #expect(try await database.repository.verify().isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func anOperatorDeletesADeviceWithItsData(store: StoreKind) async throws {
        try await withAdmin(store) { client, database in
            _ = try await populate(client)
            let device = try #require(try await database.string("SELECT id FROM device"))
            let (cookie, csrf) = try await session(client, page: "/admin/devices")
            #expect(String(buffer: try await get(client, "/admin/devices", cookie: cookie).body).contains("/admin/devices/\(device)/delete"))
            // Not without the box ticked.
            #expect(try await post(client, "/admin/devices/\(device)/delete", form: "csrf=\(csrf)", cookie: cookie).status == .unprocessableContent)
            #expect(try await database.count("checkin") == 7)
            #expect(try await post(client, "/admin/devices/\(device)/delete", form: "csrf=\(csrf)&confirm=1", cookie: cookie).headers[.location] == "/admin/devices")
            #expect(try await database.count("device") == 0)
            #expect(try await database.count("checkin") == 0)
            #expect(try await database.storedSamples().count == 0)
            #expect(try await database.count("loudness") == 0)
            #expect(try await overall(client) == nil)
        }
    }
}
