import Foundation
import HearClearAnalysis
import HearClearCore
import Hummingbird
import HummingbirdTesting
import TestCluster
import Testing

@testable import HearClearServer

/// Speech and music in API v2 check-ins: stored each second, counted per cell in the same
/// transaction (classified seconds, and those with speech or music detected), answered as shares,
/// and said in words on the venue pages when an hour is mostly music.
@Suite struct SoundShareTests {
    /// 120 seconds on Saturday 2026-11-21 at 21:00 UTC: music detected in the first 90 (80 %, then
    /// 20 %), speech in the first 30 (60 %, then 10 %); two loud events, one tagged music.
    static func classifiedCheckIn(venue: String, start: String = "2026-11-21T21:00:00Z") -> CheckIn {
        var checkIn = CheckInV2Tests.detailedCheckIn(venue: venue)
        checkIn.startedAt = Timestamp.parse(start)!
        checkIn.samples = checkIn.samples.enumerated().map { index, sample in
            var sample = sample
            sample.classes = SoundClasses(percent: index < 30 ? 60 : 10, index < 90 ? 80 : 20)
            return sample
        }
        checkIn.events = [LoudEvent(t: 10, peak: -20, durationS: 3, sound: .music), LoudEvent(t: 50, peak: -18, durationS: 2)]
        return checkIn
    }

    func post(_ body: CheckInV2, token: String, client: any TestClientProtocol) async throws -> TestResponse {
        try await client.execute(uri: "/api/v2/checkins", method: .post, headers: bearer(token), body: try json(body))
    }

    func overall(_ client: any TestClientProtocol, venue: String) async throws -> ConversationCell {
        try await client.execute(uri: "/api/v2/venues/\(venue)/loudness", method: .get) { response in
            #expect(response.status == .ok)
            return try decode(ConversationLoudness.self, response).overall
        }
    }

    @Test(arguments: StoreKind.allCases) func classesTravelInVersion2AndTheCellsCountThem(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let first = try await client.registerDevice(), second = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: first)
            var checkIn = Self.classifiedCheckIn(venue: "v1")
            checkIn.classesModel = 4
            let body = CheckInV2(checkIn)
            #expect(body.classes?.speech.prefix(31) == ArraySlice(Array(repeating: 60, count: 30) + [10]))
            #expect(try await post(body, token: first, client: client).status == .created)
            #expect(try await database.storedSamples().filter { $0.sample.classes?.percent.music == 80 }.count == 90)
            // Read back as stored: the classes and the event's class with the levels.
            let readBack = try await client.execute(uri: "/api/v2/checkins/\(checkIn.id.wireString)", method: .get, headers: bearer(first)) { response in
                try decode(CheckInV2.self, response)
            }
            #expect(readBack == body && readBack.events.map(\.sound) == [.music, nil])

            var cell = try await overall(client, venue: "v1")
            #expect(cell.musicShare == 0.75 && cell.speechShare == 0.25)
            // A check-in without classes (API v1) adds seconds but no classified ones.
            var plain = makeCheckIn(venue: "v1", start: "2026-11-21T21:05:00Z", seconds: 120, level: -45)
            plain.calibrationDB = checkIn.calibrationDB
            #expect(try await client.postCheckIn(plain, token: second).status == .created)
            let stored = try #require(try await database.repository.loudness(venueID: "v1")?.first { $0.weekday == 7 && $0.hour == 24 })
            #expect(stored.samples == 240 && stored.sounds == SoundCounts(classified: 120, speech: 30, music: 90))
            cell = try await overall(client, venue: "v1")
            #expect(cell.musicShare == 0.75 && cell.speechShare == 0.25)
            #expect(try await database.repository.verify() == [])
            // Summed again without the first device's check-in: nothing classified is left.
            _ = try await database.repository.setBanned(device: try await deviceID(of: checkIn.id, in: database), banned: true)
            cell = try await overall(client, venue: "v1")
            #expect(cell.musicShare == nil && cell.speechShare == nil && cell.cell.checkins == 1)
            #expect(try await database.repository.verify() == [])
        }
    }

    /// Which model versions classified a cell's check-ins: stored with each check-in, said per cell
    /// beside the shares, and gone with a check-in that stops counting; an older client's check-in
    /// counts in the shares without adding a version.
    @Test(arguments: StoreKind.allCases) func aCellSaysWhichModelVersionsItsSharesComeFrom(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let first = try await client.registerDevice(), second = try await client.registerDevice(), third = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: first)
            var newer = Self.classifiedCheckIn(venue: "v1")
            newer.classesModel = 4
            var older = Self.classifiedCheckIn(venue: "v1", start: "2026-11-21T21:10:00Z")
            (older.id, older.classesModel) = (UUID(), 3)
            var unsaid = Self.classifiedCheckIn(venue: "v1", start: "2026-11-21T21:20:00Z")
            unsaid.id = UUID()
            for (checkIn, token) in [(newer, first), (older, second), (unsaid, third)] {
                #expect(try await post(CheckInV2(checkIn), token: token, client: client).status == .created)
            }
            let readBack = try await client.execute(uri: "/api/v2/checkins/\(older.id.wireString)", method: .get, headers: bearer(second)) { response in
                try decode(CheckInV2.self, response)
            }
            #expect(readBack.classesModel == 3)
            var cell = try await overall(client, venue: "v1")
            #expect(cell.classesModels == [3, 4] && cell.musicShare == 0.75, "\(cell)")
            _ = try await database.repository.setBanned(device: try await deviceID(of: older.id, in: database), banned: true)
            cell = try await overall(client, venue: "v1")
            #expect(cell.classesModels == [4] && cell.cell.checkins == 2, "\(cell)")
            _ = try await database.repository.setBanned(device: try await deviceID(of: newer.id, in: database), banned: true)
            cell = try await overall(client, venue: "v1")
            #expect(cell.classesModels == [] && cell.musicShare == 0.75, "\(cell)")
            #expect(try await database.repository.verify() == [])
        }
    }

    func deviceID(of checkIn: UUID, in database: TemporaryDatabase) async throws -> UUID {
        // SQLite keeps the device's row number in the check-in, PostgreSQL its id.
        let device = database.kind == .sqlite ? "d.seq = c.device_seq" : "d.id = c.device_id"
        return try #require(
            UUID(uuidString: try await database.string("SELECT d.id FROM checkin c JOIN device d ON \(device) WHERE c.id = '\(checkIn.wireString)'") ?? ""))
    }

    @Test(arguments: StoreKind.allCases) func badClassesAreRefusedAndNothingIsStored(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            let good = CheckInV2(Self.classifiedCheckIn(venue: "v1"))
            var short = good
            short.classes?.music.removeLast()
            var above = good
            above.classes?.speech[4] = 101
            var noModel = good
            noModel.classesModel = 0
            var modelAlone = good
            (modelAlone.classes, modelAlone.classesModel) = (nil, 4)
            for (body, message) in [
                (short, "classes.music has 119 entries, levels.avg 120"), (above, "classes.speech[4] is 101: classes are whole percent from 0 to 100"),
                (noModel, "classes_model is 0: a model's version is a whole number from 1 to 32767"),
                (modelAlone, "classes_model names the model that gave classes, and there are none"),
            ] {
                let response = try await post(body, token: token, client: client)
                let said = try errorMessage(response)
                #expect(response.status == .unprocessableContent && said.contains(message), "\(said)")
            }
            // Speech without music, and an event of no known class.
            var document = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(good)) as? [String: Any])
            document["classes"] = ["speech": good.classes?.speech ?? []]
            let alone = String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
            let missing = try await client.execute(uri: "/api/v2/checkins", method: .post, headers: bearer(token), body: ByteBuffer(string: alone))
            let missingSaid = try errorMessage(missing)
            #expect(missing.status == .badRequest && missingSaid.contains("classes.music is missing"), "\(missingSaid)")
            let text = String(decoding: try JSONEncoder().encode(good), as: UTF8.self).replacingOccurrences(of: #""class":"music""#, with: #""class":"jazz""#)
            let jazz = try await client.execute(uri: "/api/v2/checkins", method: .post, headers: bearer(token), body: ByteBuffer(string: text))
            let jazzSaid = try errorMessage(jazz)
            #expect(jazz.status == .unprocessableContent && jazzSaid.contains("events[0].class"), "\(jazzSaid)")
            #expect(try await database.count("checkin") == 0)
        }
    }

    /// Saturday from 21:00 mostly music, in words, on the public page.
    @Test(arguments: StoreKind.allCases) func theVenuePageSaysWhenItIsMostlyMusic(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("bar", token: token)
            for (hour, music) in [(19, 10), (20, 30), (21, 80), (22, 90)] {
                var checkIn = Self.classifiedCheckIn(venue: "bar", start: "2026-11-21T\(hour):00:00Z")
                checkIn.samples = checkIn.samples.map { sample in
                    var sample = sample
                    sample.classes = SoundClasses(percent: 20, music)
                    return sample
                }
                #expect(try await post(CheckInV2(checkIn), token: token, client: client).status == .created)
            }
            let html = try await client.execute(uri: "/venues/bar", method: .get) { String(buffer: $0.body) }
            #expect(html.contains(#"<p class="music">Mostly music after 21:00 on Saturdays.</p>"#), "\(html)")
        }
    }

    @Test func musicLedHoursAreSaidInWords() {
        func cells(_ weekday: Weekday, _ shares: [Int: Double]) -> [LoudnessAggregate] {
            shares.map { hour, share in
                LoudnessAggregate(
                    weekday: weekday.index, hour: hour, checkins: 1, samples: 100, energy: 1,
                    sounds: SoundCounts(classified: 100, speech: 0, music: Int(share * 100)))
            }
        }
        let evening: [Int: Double] = [19: 0.2, 20: 0.4, 21: 0.8, 22: 0.9, 23: 0.7]
        let sayings = MusicHours.sayings(
            cells(.saturday, evening) + cells(.friday, evening) + cells(.sunday, [18: 0.9, 19: 0.1]) + cells(.monday, [10: 0.1, 11: 0.9, 12: 0.2])
                + cells(.tuesday, [12: 0.5, 13: 1]) + cells(.wednesday, [20: 0.49]) + cells(.thursday, [9: 0.9, 10: 0, 11: 0.6]))
        #expect(
            sayings == [
                "Mostly music from 11:00 to 12:00 on Mondays.", "Mostly music at every hour measured on Tuesdays.",
                "Mostly music until 10:00 and after 11:00 on Thursdays.", "Mostly music after 21:00 on Fridays and Saturdays.",
                "Mostly music until 19:00 on Sundays.",
            ])
        #expect(MusicHours.sayings(cells(.monday, [20: 0.3])).isEmpty && MusicHours.sayings([]).isEmpty)
        #expect(MusicHours.sayings(Weekday.allCases.flatMap { cells($0, [22: 0.9]) }) == ["Mostly music at every hour measured every day."])
    }
}
