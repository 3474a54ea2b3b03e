import CompressNIO
import Foundation
import NIOCore
import Synchronization
import Testing

@testable import HearClearServer

/// The answer cache keeps the tail short: a change remakes the venue's cached answers at once, and
/// readers arriving while an answer is being made wait for that making instead of starting theirs.
@Suite struct LoudnessAnswersTests {
    struct Document: Encodable, Sendable {
        let version: Int
    }

    /// Counts how often each version of a document is made.
    final class Makings: Sendable {
        let counts = Mutex<[Int: Int]>([:])

        func make(_ version: Int) -> Document {
            counts.withLock { $0[version, default: 0] += 1 }
            return Document(version: version)
        }

        var total: Int { counts.withLock { $0.values.reduce(0, +) } }
    }

    func answer(_ answers: LoudnessAnswers, make: @escaping @Sendable () async throws -> Document) async throws -> String {
        var gzipped = try await answers.answer(venueID: "v1", document: "loudness", make: make).gzipped
        var plain = try gzipped.decompress(with: .gzip())
        return plain.readString(length: plain.readableBytes) ?? ""
    }

    @Test func aChangeRemakesTheCachedAnswerSoTheNextReaderMakesNone() async throws {
        let feed = VenueChangeFeed(), answers = LoudnessAnswers(changes: feed), makings = Makings()
        let data = Mutex(1)
        let make: @Sendable () async throws -> Document = { makings.make(data.withLock { $0 }) }
        #expect(try await answer(answers, make: make) == #"{"version":1}"#)
        #expect(makings.total == 1)
        // A check-in lands: the store commits, then touches the feed.
        data.withLock { $0 = 2 }
        feed.touch("v1")
        // The next reader is answered from the remaking, which uses the cached answer's own maker.
        let next = try await answer(answers) {
            Issue.record("the reader made the answer itself")
            return Document(version: -1)
        }
        #expect(next == #"{"version":2}"#)
        #expect(makings.counts.withLock { $0 } == [1: 1, 2: 1])
        // Another venue's change remakes nothing here.
        feed.touch("v2")
        #expect(try await answer(answers, make: make) == #"{"version":2}"#)
        #expect(makings.total == 2)
    }

    @Test func readersOfAnAnswerBeingMadeWaitForThatMaking() async throws {
        let feed = VenueChangeFeed(), answers = LoudnessAnswers(changes: feed), makings = Makings()
        // The first making waits until every reader has asked; then it is the only one.
        let asked = AsyncStream<Void>.makeStream()
        let gate = AsyncStream<Void>.makeStream()
        let make: @Sendable () async throws -> Document = {
            asked.continuation.yield()
            for await _ in gate.stream { break }
            return makings.make(1)
        }
        let readers = 20
        try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask { try await answer(answers, make: make) }
            for await _ in asked.stream { break }  // the first making has started
            for _ in 1..<readers {
                group.addTask { try await answer(answers, make: make) }
            }
            gate.continuation.yield()
            gate.continuation.finish()
            var bodies: [String] = []
            for try await answer in group { bodies.append(answer) }
            #expect(bodies.count == readers && Set(bodies) == [#"{"version":1}"#])
        }
        // The readers added after the gate opened may have found the answer cached or joined the
        // making: none made its own.
        #expect(makings.total == 1)
    }
}
