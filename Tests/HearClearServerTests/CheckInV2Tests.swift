import Foundation
import HearClearAnalysis
import HearClearCore
import Hummingbird
import HummingbirdTesting
import TestCluster
import Testing

@testable import HearClearServer

/// API v2 check-ins: columns in tenths of a dB, the details all or none, stored per second and
/// summed per cell in the same transaction, read back by the device that uploaded them.
@Suite struct CheckInV2Tests {
    /// A check-in whose every second has details: bands a few dB under the level, C above it.
    static func detailedCheckIn(venue: String, seconds: Int = 120, level: Double = -45, id: UUID = UUID()) -> CheckIn {
        var checkIn = makeCheckIn(venue: venue, start: "2026-11-16T20:00:00Z", seconds: seconds, level: level, id: id)
        checkIn.samples = checkIn.samples.map { sample in
            var sample = sample
            sample.details = LevelDetails(fastMax: sample.avg + 2, cAvg: sample.avg + 4, octaves: [sample.avg - 3, sample.avg - 4, sample.avg - 6, sample.avg - 9])
            return sample
        }
        return checkIn
    }

    func post(_ body: CheckInV2, token: String, client: any TestClientProtocol) async throws -> TestResponse {
        try await client.execute(uri: "/api/v2/checkins", method: .post, headers: bearer(token), body: try json(body))
    }

    @Test(arguments: StoreKind.allCases) func aColumnarCheckInIsStoredWithItsDetailsAndReadBack(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            let checkIn = Self.detailedCheckIn(venue: "v1")
            let body = CheckInV2(checkIn)
            #expect(body.levels.avg.first == -445 && body.levels.oct4000?.first == -535 && body.levels.t == nil)
            var headers = bearer(token)
            headers[.contentEncoding] = "gzip"
            let first = try await client.execute(uri: "/api/v2/checkins", method: .post, headers: headers, body: try gzip(try json(body))) { response throws in
                #expect(response.status == .created)
                return try decode(CheckInReceipt.self, response)
            }
            #expect(first.samples == 120 && first.status == .accepted)
            // A retry is recognised; the same id with other levels is a conflict.
            #expect(try await post(body, token: token, client: client).status == .ok)
            var changed = body
            changed.levels.oct500![3] -= 1
            #expect(try await post(changed, token: token, client: client).status == .conflict)

            #expect(try await database.storedSamples().count == 120)
            #expect(try await database.storedSamples().filter { $0.sample.details != nil }.count == 120)
            // Read back as stored, in the same columns.
            let readBack = try await client.execute(uri: "/api/v2/checkins/\(checkIn.id.wireString)", method: .get, headers: bearer(token)) { response throws in
                #expect(response.status == .ok)
                return try decode(CheckInV2.self, response)
            }
            #expect(readBack == body)
            // The cells carry the details' energy sums, as verify recomputes them.
            let cells = try #require(try await database.repository.loudness(venueID: "v1"))
            let overall = try #require(cells.first { $0.weekday == LoudnessAggregate.everyWeekday && $0.hour == LoudnessAggregate.everyHour })
            #expect(overall.details.samples == 120)
            let c = try #require(overall.details.cLevelDB), a = try #require(overall.levelDB)
            #expect(abs(c - a - 4) < 0.01)
            #expect(try await database.repository.verify().isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func aVersion1CheckInHasNoDetailsAndReadsBackWithout(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            var checkIn = makeCheckIn(venue: "v1", start: "2026-11-16T20:00:00Z", seconds: 90)
            // A gap, which v1 allows: the columns then carry the times.
            checkIn.samples.remove(at: 40)
            #expect(try await client.postCheckIn(checkIn, token: token).status == .created)
            let readBack = try await client.execute(uri: "/api/v2/checkins/\(checkIn.id.wireString)", method: .get, headers: bearer(token)) { response throws in
                try decode(CheckInV2.self, response)
            }
            #expect(readBack.levels.fastMax == nil && readBack.levels.t?.count == 89 && readBack.levels.t?[40] == 41)
            #expect(readBack.checkIn.samples == checkIn.samples.map(\.roundedForUpload))
            let cells = try #require(try await database.repository.loudness(venueID: "v1"))
            #expect(cells.allSatisfy { $0.details == .none })
        }
    }

    @Test(arguments: StoreKind.allCases) func onlyTheUploadingDeviceReadsACheckInBack(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            let owner = try await client.registerDevice(), other = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: owner)
            let checkIn = Self.detailedCheckIn(venue: "v1")
            #expect(try await post(CheckInV2(checkIn), token: owner, client: client).status == .created)
            let path = "/api/v2/checkins/\(checkIn.id.wireString)"
            #expect(try await client.execute(uri: path, method: .get, headers: bearer(other)).status == .notFound)
            #expect(try await client.execute(uri: path, method: .get, headers: jsonHeaders).status == .unauthorized)
            #expect(try await client.execute(uri: "/api/v2/checkins/\(UUID().wireString)", method: .get, headers: bearer(owner)).status == .notFound)
            #expect(try await client.execute(uri: "/api/v2/checkins/not-a-uuid", method: .get, headers: bearer(owner)).status == .badRequest)
            #expect(try await client.execute(uri: path, method: .delete, headers: bearer(owner)).status == .methodNotAllowed)
        }
    }

    /// Each bad body is refused with a 422 naming the array (and index) at fault, and nothing is stored.
    static let refusals: [(String, @Sendable (inout CheckInV2.Levels) -> Void, String)] = [
        ("a detail missing", { $0.oct2000 = nil }, "missing oct_2000"),
        ("a short array", { $0.cAvg?.removeLast() }, "levels.c_avg has 119 entries"),
        ("a level above full scale", { $0.oct1000?[7] = 3 }, "levels.oct_1000[7] is 3"),
        ("a level below the floor", { $0.peak[2] = -1601 }, "levels.peak[2] is -1601"),
        ("avg above peak", { $0.avg[5] = $0.peak[5] + 1 }, "levels.avg[5]"),
        ("fast_max under avg", { $0.fastMax?[9] = $0.avg[9] - 5 }, "levels.fast_max[9]"),
        ("no intervals", { $0 = CheckInV2.Levels(avg: [], peak: []) }, "levels.avg must not be empty"),
        ("times out of order", { $0.t = (0..<120).map(Double.init); $0.t?[3] = 1 }, "levels.t[3] must be greater"),
    ]

    /// A meter stopped mid-interval sends that last, partial interval too (the CLI's and the
    /// browser's alike): measured over a fraction of a second, its average can pass its Fast maximum
    /// by more than a whole interval allows, while the detector is still rising.
    @Test func aLastPartialIntervalMayHaveItsFastMaximumUnderItsAverage() async throws {
        try await withApp(store: .sqlite) { client, database in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            var body = CheckInV2(Self.detailedCheckIn(venue: "v1"))
            let last = body.levels.avg.count - 1
            body.levels.fastMax?[last] = body.levels.avg[last] - 6
            #expect(try await post(body, token: token, client: client).status == .created)
            #expect(try await database.count("checkin") == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func badColumnsAreRefusedNamingTheArrayAndIndex(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            for (name, spoil, message) in Self.refusals {
                var body = CheckInV2(Self.detailedCheckIn(venue: "v1"))
                spoil(&body.levels)
                let response = try await post(body, token: token, client: client)
                #expect(response.status == .unprocessableContent, "\(name)")
                let said = try errorMessage(response)
                #expect(said.contains(message), "\(name): \(said)")
            }
            // Levels are integers: a fraction is a malformed body.
            var text = String(decoding: try JSONEncoder().encode(CheckInV2(Self.detailedCheckIn(venue: "v1"))), as: UTF8.self)
            text = text.replacingOccurrences(of: "\"avg\":[-445", with: "\"avg\":[-44.5")
            let fraction = try await client.execute(uri: "/api/v2/checkins", method: .post, headers: bearer(token), body: ByteBuffer(string: text))
            #expect(fraction.status == .badRequest || fraction.status == .unprocessableContent)
            #expect(try await database.count("checkin") == 0)
        }
    }

    /// Retention drops the seconds but keeps the per-hour sums with their details; a calibration
    /// change scales those too; verify and rebuild agree throughout.
    @Test(arguments: StoreKind.allCases) func detailSumsSurvivePruningAndFollowCalibration(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let token = try await client.registerDevice(model: "Mic Z")
            _ = try await client.putVenue("v1", token: token)
            var checkIn = Self.detailedCheckIn(venue: "v1")
            checkIn.calibrationDB = nil
            #expect(try await post(CheckInV2(checkIn), token: token, client: client).status == .created)
            var second = Self.detailedCheckIn(venue: "v1", level: -44)
            second.calibrationDB = nil
            second.startedAt = second.startedAt.addingTimeInterval(-7 * 86_400)
            #expect(try await post(CheckInV2(second), token: token, client: client).status == .created)
            let before = try #require(try await database.repository.loudness(venueID: "v1")?.first { $0.weekday == 7 && $0.hour == 24 })
            #expect(before.details.samples == 240)
            #expect(try await database.repository.pruneSamples(startedBefore: Timestamp.parse("2026-11-12T00:00:00Z")!, at: Date()) == 1)
            #expect(try await database.repository.verify().isEmpty)
            try await database.repository.setCalibration(model: "Mic Z", offsetDB: 100, at: Date())
            let after = try #require(try await database.repository.loudness(venueID: "v1")?.first { $0.weekday == 7 && $0.hour == 24 })
            #expect(abs(try #require(after.details.cLevelDB) - (try #require(before.details.cLevelDB) - 10)) < 0.01)
            #expect(try await database.repository.verify().isEmpty)
            try await database.repository.rebuild()
            #expect(try await database.repository.verify().isEmpty)
        }
    }
}
