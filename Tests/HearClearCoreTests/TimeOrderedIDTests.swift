import Foundation
import HearClearCore
import Testing

/// A check-in's id is a version 7 UUID at its start (RFC 9562), so that the stores' indexes of ids
/// grow at their end: its text sorts as its time does, and it is still a valid UUID.
@Suite struct TimeOrderedIDTests {
    struct Counter: RandomNumberGenerator {
        var value: UInt64
        mutating func next() -> UInt64 {
            value &+= 0x9E37_79B9_7F4A_7C15
            return value
        }
    }

    @Test func carriesItsMillisecondsVersionAndVariant() throws {
        var random = Counter(value: 1)
        let id = UUID(timeOrderedAt: Date(timeIntervalSince1970: 1_790_000_000.1234), using: &random)
        #expect(id.timeOrderedMilliseconds == 1_790_000_000_123)
        let text = id.uuidString.lowercased()
        let milliseconds = String(1_790_000_000_123, radix: 16)
        #expect(text.replacingOccurrences(of: "-", with: "").hasPrefix(String(repeating: "0", count: 12 - milliseconds.count) + milliseconds))
        #expect(Array(text)[14] == "7")
        #expect("89ab".contains(Array(text)[19]))
        #expect(UUID(uuidString: text) == id)
        #expect(UUID().timeOrderedMilliseconds == nil)
    }

    @Test func sortsAsItsTimeDoes() {
        var random = SystemRandomNumberGenerator()
        let starts = (0..<200).map { Date(timeIntervalSince1970: 1_700_000_000 + Double($0) * 0.37) }
        let ids = starts.map { UUID(timeOrderedAt: $0, using: &random) }
        let texts = ids.map { $0.uuidString.lowercased() }
        #expect(texts == texts.sorted())
        #expect(ids.map(\.timeOrderedMilliseconds) == starts.map { UInt64(($0.timeIntervalSince1970 * 1000).rounded(.down)) })
        // Ids of one millisecond still differ: 74 random bits.
        let same = (0..<100).map { _ in UUID(timeOrderedAt: starts[0], using: &random) }
        #expect(Set(same).count == same.count)
    }

    /// A recording's id from its name: the same name at the same moment, the same id (in any
    /// process: the bits are no seeded hash); another name, or another moment, another id.
    @Test func aNamedIdIsTheSameForTheSameNameOnly() {
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        let id = UUID(timeOrderedAt: start, naming: "bar 1790000000 2880044 48000")
        #expect(id == UUID(timeOrderedAt: start, naming: "bar 1790000000 2880044 48000"))
        #expect(id.uuidString.lowercased() == "01a0c450-6c00-7040-addf-994cc9e40b39")
        #expect(id.timeOrderedMilliseconds == 1_790_000_000_000 && Array(id.uuidString)[14] == "7")
        let others = (0..<1000).map { UUID(timeOrderedAt: start, naming: "bar 1790000000 \(2880044 + $0 + 1) 48000") }
        #expect(Set(others + [id]).count == 1001)
        #expect(UUID(timeOrderedAt: start.addingTimeInterval(1), naming: "bar 1790000000 2880044 48000") != id)
    }
}
