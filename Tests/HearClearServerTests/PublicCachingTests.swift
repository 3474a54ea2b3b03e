import Foundation
import HTTPTypes
import HearClearCore
import HummingbirdTesting
import Testing

@testable import HearClearServer

/// The public answers and pages may be cached for a minute and revalidated with their ETag: 304
/// and no body while nothing changed, the new body once a check-in changes them.
@Suite struct PublicCachingTests {
    static let paths = ["/api/v1/venues/v1/loudness", "/api/v2/venues/v1/loudness", "/venues/v1", "/venues/v1/measure", "/venues?q=quiet"]

    @Test(arguments: paths) func anUnchangedAnswerIsNotSentAgain(path: String) async throws {
        try await withApp { client, _ in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            #expect(try await client.postCheckIn(makeCheckIn(venue: "v1", start: mondayEvening(weeksBefore: 1)), token: token).status == .created)

            let first = try await client.execute(uri: path, method: .get)
            #expect(first.status == .ok)
            #expect(first.headers[.cacheControl] == "public, max-age=60")
            let eTag = try #require(first.headers[.eTag])
            #expect(eTag.hasPrefix("W/\""))

            let again = try await client.execute(uri: path, method: .get, headers: [.ifNoneMatch: eTag])
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)
            #expect(again.headers[.eTag] == eTag && again.headers[.cacheControl] == "public, max-age=60")
            // Another tag (an older answer's) gets the whole answer.
            #expect(try await client.execute(uri: path, method: .get, headers: [.ifNoneMatch: #"W/"0123""#]).status == .ok)
        }
    }

    @Test(arguments: paths.prefix(3)) func aNewCheckInChangesTheTag(path: String) async throws {
        try await withApp { client, _ in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            #expect(try await client.postCheckIn(makeCheckIn(venue: "v1", start: mondayEvening(weeksBefore: 1)), token: token).status == .created)
            let before = try #require(try await client.execute(uri: path, method: .get).headers[.eTag])
            #expect(try await client.postCheckIn(makeCheckIn(venue: "v1", start: mondayEvening(weeksBefore: 2), level: -40), token: token).status == .created)
            let after = try await client.execute(uri: path, method: .get, headers: [.ifNoneMatch: before])
            #expect(after.status == .ok && after.body.readableBytes > 0)
            #expect(after.headers[.eTag] != before)
        }
    }

    @Test func gzipAndPlainAnswersShareTheirTag() async throws {
        try await withApp { client, _ in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            #expect(try await client.postCheckIn(makeCheckIn(venue: "v1", start: mondayEvening(weeksBefore: 1)), token: token).status == .created)
            let gzipped = try await client.execute(uri: "/api/v2/venues/v1/loudness", method: .get, headers: [.acceptEncoding: "gzip"])
            let plain = try await client.execute(uri: "/api/v2/venues/v1/loudness", method: .get)
            #expect(gzipped.headers[.contentEncoding] == "gzip" && plain.headers[.contentEncoding] == nil)
            #expect(gzipped.headers[.eTag] == plain.headers[.eTag] && plain.headers[.vary] == "Accept-Encoding")
        }
    }
}
