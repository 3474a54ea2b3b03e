import CompressNIO
import Foundation
import HearClearCore
import Hummingbird
import NIOCore
import Synchronization

/// Loudness answers kept encoded and gzipped, per venue, until the venue's data changes (the
/// change feed says when): most requests then cost a lookup instead of a database read and 200
/// cells of JSON. Bounded: past `capacity` venues, half the entries are let go.
final class LoudnessAnswers: Sendable {
    private struct Entry {
        let changeCount: UInt64
        let gzipped: ByteBuffer
    }

    let capacity: Int
    let changes: VenueChangeFeed
    private let entries = Mutex<[String: Entry]>([:])

    init(changes: VenueChangeFeed, capacity: Int = 20_000) {
        self.changes = changes
        self.capacity = capacity
    }

    /// The answer for a venue: from the cache when nothing changed since it was made, else made by
    /// `make`. `document` tells the answers of one venue apart (v1's and v2's loudness).
    func answer(venueID: String, document: String = "loudness", acceptsGzip: Bool, make: () async throws -> some Encodable) async throws -> Response {
        // Read before the data, so a change that lands meanwhile makes the next request miss.
        let changeCount = changes.count(for: venueID)
        let key = "\(document) \(venueID)"
        var gzipped = entries.withLock { $0[key].flatMap { $0.changeCount == changeCount ? $0.gzipped : nil } }
        if gzipped == nil {
            ServerMetrics.answerCacheMisses.increment()
            var plain = ByteBuffer(bytes: try APIResponseEncoder.jsonEncoder().encode(try await make()))
            let compressed = try plain.compress(with: .gzip())
            entries.withLock { entries in
                if entries.count >= capacity {
                    entries = Dictionary(uniqueKeysWithValues: entries.prefix(capacity / 2).map { ($0.key, $0.value) })
                }
                entries[key] = Entry(changeCount: changeCount, gzipped: compressed)
            }
            gzipped = compressed
        } else {
            ServerMetrics.answerCacheHits.increment()
        }
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .vary: "Accept-Encoding"]
        guard var body = gzipped else { throw HTTPError(.internalServerError) }
        if acceptsGzip {
            headers[.contentEncoding] = "gzip"
        } else {
            body = try body.decompress(with: .gzip())
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }
}
