extension LevelHistogram {
    /// From the text the stores kept before they kept bytes: `bin:count` pairs by rising bin,
    /// comma-separated (`140:3,141:12`); empty or `nil` for no seconds. Read only by the migration
    /// that turns every stored histogram into bytes (`Migrations.Step.histogramsIntoBytes`).
    public init(text: String?) throws(Malformed) {
        guard var text, !text.isEmpty else {
            self = .empty
            return
        }
        let counts = text.withUTF8(Self.pairs)
        guard let counts else { throw Malformed(description: "a level histogram is not bin:count pairs: \(text.prefix(80))") }
        self.init(counts: counts)
    }

    /// `bin:count` pairs, each bin once and each count above zero; nil for anything else.
    private static func pairs(_ text: UnsafeBufferPointer<UInt8>) -> [Int: Int]? {
        var counts: [Int: Int] = [:]
        counts.reserveCapacity(text.count / 6)
        var index = 0
        // A decimal integer, an optional minus sign first; at most 15 digits, so it cannot overflow.
        func integer() -> Int? {
            let negative = index < text.count && text[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            let start = index
            var value = 0
            while index < text.count, index - start < 16, case let digit = text[index] &- UInt8(ascii: "0"), digit < 10 {
                value = value * 10 + Int(digit)
                index += 1
            }
            guard index > start, index - start <= 15 else { return nil }
            return negative ? -value : value
        }
        while true {
            guard let bin = integer(), index < text.count, text[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let count = integer(), count > 0, counts.updateValue(count, forKey: bin) == nil else { return nil }
            if index == text.count { return counts }
            guard text[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
    }
}
