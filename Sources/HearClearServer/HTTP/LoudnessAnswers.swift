import CompressNIO
import Foundation
import HearClearCore
import Hummingbird
import NIOCore
import Synchronization

/// Loudness answers kept encoded and gzipped, per venue, until the venue's data changes (the
/// change feed says when): most requests then cost a lookup instead of a database read and 200
/// cells of JSON. Bounded: past `capacity` answers, half are let go.
///
/// A change does not leave the next reader to pay for the new answer: the feed tells the cache, which
/// makes the changed venue's cached answers again at once, in the background. A request that comes
/// while an answer is being made waits for that one making rather than starting its own, so a
/// burst of readers after a check-in costs one database read and one encoding.
///
/// Each answer carries its ETag, taken once when it is made, and may be cached for a minute
/// (`PublicCaching`); a reader who sends the ETag back gets 304 while the answer is the same.
final class LoudnessAnswers: Sendable {
    /// An answer as sent: its JSON gzipped, and the ETag of that.
    struct Answer: Sendable {
        let gzipped: ByteBuffer
        let eTag: String
    }

    /// Makes one answer, encoded and gzipped.
    typealias Maker = @Sendable () async throws -> Answer

    private struct Entry {
        let venueID: String
        let changeCount: UInt64
        let answer: Answer
        let make: Maker
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Answers being made, by key and change count.
        var making: [String: Task<Answer, any Error>] = [:]
    }

    let capacity: Int
    let changes: VenueChangeFeed
    private let state = Mutex(State())

    init(changes: VenueChangeFeed, capacity: Int = 20_000) {
        self.changes = changes
        self.capacity = capacity
        changes.observe { [weak self] venueID in self?.remake(venueID) }
    }

    /// The answer for a venue: from the cache when nothing changed since it was made, else made by
    /// `make`. `document` tells the answers of one venue apart (v1's and v2's loudness).
    func answer(
        venueID: String, document: String = "loudness", request: Request, context: some RequestContext,
        make: @escaping @Sendable () async throws -> some Encodable & Sendable
    ) async throws -> Response {
        let answer = try await answer(venueID: venueID, document: document, make: make)
        return try await PublicCaching.response(eTag: answer.eTag, request: request, context: context, headers: [.vary: "Accept-Encoding"]) {
            var body = answer.gzipped
            var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
            if request.acceptsGzip {
                headers[.contentEncoding] = "gzip"
            } else {
                body = try body.decompress(with: .gzip())
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
        }
    }

    /// The answer: cached, or being made, or made now.
    func answer(venueID: String, document: String, make: @escaping @Sendable () async throws -> some Encodable & Sendable) async throws -> Answer {
        // Read before the data, so a change that lands meanwhile makes the next request miss.
        let changeCount = changes.count(for: venueID)
        let key = "\(document) \(venueID)"
        if let cached = state.withLock({ $0.entries[key].flatMap { $0.changeCount == changeCount ? $0.answer : nil } }) {
            ServerMetrics.answerCacheHits.increment()
            return cached
        }
        ServerMetrics.answerCacheMisses.increment()
        let maker: Maker = {
            var plain = ByteBuffer(bytes: try APIResponseEncoder.jsonEncoder().encode(try await make()))
            let gzipped = try plain.compress(with: .gzip())
            return Answer(gzipped: gzipped, eTag: PublicCaching.entityTag(of: gzipped.readableBytesView))
        }
        return try await made(key: key, venueID: venueID, changeCount: changeCount, make: maker).value
    }

    /// The making of an answer: one already under way for the same key and change count, or a new
    /// one, which stores what it made.
    private func made(key: String, venueID: String, changeCount: UInt64, make: @escaping Maker) -> Task<Answer, any Error> {
        let making = "\(key) \(changeCount)"
        return state.withLock { state in
            if let running = state.making[making] { return running }
            // Made meanwhile, between this reader's look in the cache and now.
            if let entry = state.entries[key], entry.changeCount == changeCount {
                let answer = entry.answer
                return Task { answer }
            }
            let task = Task<Answer, any Error> {
                do {
                    let answer = try await make()
                    self.state.withLock { state in
                        state.making[making] = nil
                        if state.entries.count >= self.capacity {
                            state.entries = Dictionary(uniqueKeysWithValues: state.entries.prefix(self.capacity / 2).map { ($0.key, $0.value) })
                        }
                        // An answer made for an older change count never replaces a newer one.
                        if (state.entries[key]?.changeCount ?? 0) <= changeCount {
                            state.entries[key] = Entry(venueID: venueID, changeCount: changeCount, answer: answer, make: make)
                        }
                    }
                    return answer
                } catch {
                    self.state.withLock { $0.making[making] = nil }
                    throw error
                }
            }
            state.making[making] = task
            return task
        }
    }

    /// Makes a changed venue's cached answers again, so its next reader finds them ready.
    private func remake(_ venueID: String) {
        let changeCount = changes.count(for: venueID)
        let cached = state.withLock { state in state.entries.filter { $0.value.venueID == venueID && $0.value.changeCount != changeCount } }
        for (key, entry) in cached {
            _ = made(key: key, venueID: venueID, changeCount: changeCount, make: entry.make)
        }
    }
}
