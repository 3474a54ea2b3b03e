import Foundation
import HearClearAnalysis
import HearClearCore
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestCluster
import Testing

@testable import HearClearServer

/// A venue's kind: set by its owner through the API or by an operator, kept when a change leaves
/// it out, shown in answers and history; and the observations estimates are fitted to, with it.
@Suite struct VenueKindTests {
    func put(_ client: some TestClientProtocol, _ id: String, token: String, body: String) async throws -> TestResponse {
        try await client.execute(uri: "/api/v1/venues/\(id)", method: .put, headers: bearer(token), body: ByteBuffer(string: body))
    }

    @Test(arguments: StoreKind.allCases) func theOwnerSetsTheKindAndAChangeWithoutOneKeepsIt(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let token = try await client.registerDevice()
            let created = try await put(client, "crown", token: token, body: #"{"name": "The Crown", "latitude": 51.5, "longitude": -0.12, "timezone": "Europe/London", "kind": "pub"}"#)
            #expect(created.status == .created)
            #expect(try decode(Venue.self, created).kind == .pub)
            // An older client's change says nothing of the kind: it stays.
            let renamed = try await put(client, "crown", token: token, body: #"{"name": "The Crown Inn", "latitude": 51.5, "longitude": -0.12, "timezone": "Europe/London"}"#)
            #expect(try decode(Venue.self, renamed).kind == .pub)
            try await client.execute(uri: "/api/v1/venues/crown", method: .get) { response throws in
                #expect(String(buffer: response.body).contains(#""kind":"pub""#))
            }
            let refused = try await put(client, "crown", token: token, body: #"{"name": "x", "latitude": 0, "longitude": 0, "timezone": "UTC", "kind": "disco"}"#)
            #expect(refused.status == .unprocessableContent)
            let message = try errorMessage(refused)
            #expect(message.contains(#""bar", "pub", "restaurant", "cafe", "club", "other""#), "\(message)")
            #expect(try await database.string("SELECT name FROM venue") == "The Crown Inn")
            // A venue nobody gave a kind says so.
            let plain = try await put(client, "plain", token: token, body: #"{"name": "Plain", "latitude": 0, "longitude": 0, "timezone": "UTC"}"#)
            #expect(String(buffer: plain.body).contains(#""kind":null"#))
        }
    }

    @Test(arguments: StoreKind.allCases) func anOperatorSetsTheKindAndTheHistorySaysSo(store: StoreKind) async throws {
        let database = try await TemporaryDatabase(store)
        let device = try await database.repository.registerDevice(DeviceRegistration(model: "m", platform: "linux"), tokenHash: Data([1]), at: Date())
        _ = try await database.repository.saveVenue(id: "v", VenueUpsert(name: "V", latitude: 0, longitude: 0, timezone: "UTC"), by: device, at: Date())
        let store = database.repository
        #expect(try await store.editVenue(id: "v", VenueUpsert(name: "V", latitude: 0, longitude: 0, timezone: "UTC", kind: .cafe), at: Date()))
        let detail = try #require(try await store.venueDetail(id: "v"))
        #expect(detail.venue.kind == .cafe)
        #expect(detail.history.map(VenuePage.describe).contains("kind none → cafe"))
    }

    /// What estimates are fitted to: each counting check-in's level per local hour, with its
    /// venue's kind (`other` when not said); an outlier's and a banned device's are left out.
    @Test(arguments: StoreKind.allCases) func observationsAreTheCountingCheckInsPerHourWithTheirKind(store: StoreKind) async throws {
        let database = try await TemporaryDatabase(store)
        let repository = database.repository
        let device = try await repository.registerDevice(DeviceRegistration(model: "m", platform: "linux"), tokenHash: Data([1]), at: Date())
        let banned = try await repository.registerDevice(DeviceRegistration(model: "m", platform: "linux"), tokenHash: Data([2]), at: Date())
        _ = try await repository.saveVenue(id: "bar", VenueUpsert(name: "Bar", latitude: 0, longitude: 0, timezone: "UTC", kind: .bar), by: device, at: Date())
        _ = try await repository.saveVenue(id: "plain", VenueUpsert(name: "Plain", latitude: 0, longitude: 0, timezone: "UTC"), by: device, at: Date())
        // 20:59:30 for a minute: two hours, 30 seconds in each.
        _ = try await repository.storeCheckIn(makeCheckIn(venue: "bar", start: "2026-11-16T20:59:30Z", level: -40), contentHash: Data([1]), by: device, at: Date())
        _ = try await repository.storeCheckIn(makeCheckIn(venue: "plain", start: "2026-11-17T12:00:00Z", level: -50), contentHash: Data([2]), by: device, at: Date())
        _ = try await repository.storeCheckIn(makeCheckIn(venue: "plain", start: "2026-11-17T13:00:00Z", level: -50), contentHash: Data([3]), by: banned, at: Date())
        try await database.ban(banned)

        let observations = try await repository.hourObservations()
        #expect(observations.map(\.venue) == ["bar", "bar", "plain"])
        #expect(observations.map(\.kind) == [.bar, .bar, .other])
        #expect(observations.map(\.hour) == [LocalHour(weekday: 0, hour: 20), LocalHour(weekday: 0, hour: 21), LocalHour(weekday: 1, hour: 12)])
        // −40 dBFS ± 0.5 with 110 dB of calibration: an energy mean a hair above 70 dB.
        #expect(observations.allSatisfy { abs($0.level - ($0.venue == "bar" ? 70 : 60)) < 0.2 }, "\(observations.map(\.level))")
        #expect(observations[0].checkIn == observations[1].checkIn && observations[1].checkIn != observations[2].checkIn)
    }
}
