import Foundation

extension LevelHistogram {
    /// The bytes the stores kept from migration 0010 until 0012 made them `stored`: per bin that
    /// holds seconds, by rising bin, its distance from the one before (less one; the first bin as
    /// a zigzag number) and its count, each a varint. Written only by migration 0010's step, which
    /// must leave what 0012 reads, and read only by 0012's (`Migrations.Step.histogramsDense`).
    public var gapped: Data {
        var writer = SampleColumns.ByteWriter()
        var previous: Int?
        for (bin, count) in counts.sorted(by: { $0.key < $1.key }) {
            if let previous { writer.varint(UInt64(bin - previous - 1)) } else { writer.signedVarint(Int64(bin)) }
            writer.varint(UInt64(count))
            previous = bin
        }
        return Data(writer.bytes)
    }

    /// From `gapped`; `nil` is no seconds.
    public init(gapped bytes: Data?) throws(Malformed) {
        var reader = SampleColumns.ByteReader(Array(bytes ?? Data()))
        var counts: [Int: Int] = [:]
        var previous: Int?
        while !reader.isAtEnd {
            guard let step = try? previous == nil ? reader.signedVarint() : Int64(clamping: reader.varint()), let count = try? reader.varint() else {
                throw Malformed(description: "a level histogram ends in the middle of a bin")
            }
            // Bounded before any arithmetic, so that a damaged number cannot overflow.
            guard step.magnitude <= UInt64(4 * Self.farthestBin) else { throw Malformed.beyondRange }
            let bin = previous.map { $0 + Int(step) + 1 } ?? Int(step)
            guard abs(bin) <= Self.farthestBin else { throw Malformed.beyondRange }
            guard count > 0, count <= UInt64(Self.largestCount) else { throw Malformed(description: "a level histogram counts \(count) seconds in a bin") }
            counts[bin] = Int(count)
            previous = bin
        }
        self.init(counts: counts)
    }
}
