import Foundation

/// Reads, byte by byte, the two things `CheckInV2.scanned` needs from a JSON document: the members
/// of its top-level object, and objects whose members are arrays of integers. It is strict where it
/// parses (integers, keys) and only finds the ends of everything else, which it copies for
/// `JSONDecoder` to check. Any doubt is nil, never a guess: the caller then uses `JSONDecoder`.
struct JSONColumnScanner {
    /// The top-level object split in two: the objects of columns, read, and every other member
    /// copied, bytes unchanged, into an object of its own.
    struct Members {
        var columns: [String: [String: [Int]]]
        var rest: Data
    }

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    /// Deeper than anything a check-in holds; deeper documents go to `JSONDecoder`, which has its own limit.
    private static let deepest = 32
    /// Up to 18 digits an integer always fits an `Int`; longer ones go to `JSONDecoder` to refuse or not.
    private static let longestInteger = 18

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Nil unless the document is one object with each key of `columns` at most once, its value
    /// an object of columns (`integerColumns`) with the keys `columns` allows it.
    mutating func topLevelMembers(columns allowed: [String: Set<String>]) -> Members? {
        var columns: [String: [String: [Int]]] = [:]
        var rest = Data("{".utf8)
        rest.reserveCapacity(1024)
        let complete = object { scanner, key, memberStart in
            if let keys = allowed[key] {
                guard columns[key] == nil, let read = scanner.integerColumns(allowed: keys) else { return false }
                columns[key] = read
            } else {
                guard scanner.skipValue(depth: 1) else { return false }
                if rest.count > 1 { rest.append(UInt8(ascii: ",")) }
                rest.append(contentsOf: UnsafeRawBufferPointer(rebasing: scanner.bytes[memberStart..<scanner.index]))
            }
            return true
        }
        guard complete, atEnd() else { return nil }
        rest.append(UInt8(ascii: "}"))
        return Members(columns: columns, rest: rest)
    }

    /// An object whose members are all arrays of integers, each of its key in `allowed`, each key
    /// once; nil for anything else.
    private mutating func integerColumns(allowed: Set<String>) -> [String: [Int]]? {
        var columns: [String: [Int]] = [:]
        let complete = object { scanner, key, _ in
            guard allowed.contains(key), columns[key] == nil, let values = scanner.integers() else { return false }
            columns[key] = values
            return true
        }
        return complete ? columns : nil
    }

    /// An object, calling `member` with each key once the scanner stands on its value (and where
    /// the member began); `member` reads the value.
    private mutating func object(_ member: (inout JSONColumnScanner, String, Int) -> Bool) -> Bool {
        skipWhitespace()
        guard take(UInt8(ascii: "{")) else { return false }
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            skipWhitespace()
            let memberStart = index
            guard let key = key() else { return false }
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            guard member(&self, key, memberStart) else { return false }
            skipWhitespace()
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// A key without escapes: one with them is rare enough to leave to `JSONDecoder`.
    private mutating func key() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            }
            guard byte != UInt8(ascii: "\\"), byte >= 0x20 else { return nil }
            index += 1
        }
        return nil
    }

    /// `[1, -2, 3]`: integers without fraction or exponent.
    private mutating func integers() -> [Int]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var values: [Int] = []
        values.reserveCapacity(elementCount())
        skipWhitespace()
        if take(UInt8(ascii: "]")) { return values }
        repeat {
            skipWhitespace()
            guard let value = integer() else { return nil }
            values.append(value)
            skipWhitespace()
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? values : nil
    }

    /// How many elements the array being read has if it is flat: its commas up to `]`, plus one.
    private func elementCount() -> Int {
        var commas = 0, at = index
        while at < bytes.count, bytes[at] != UInt8(ascii: "]") {
            if bytes[at] == UInt8(ascii: ",") { commas += 1 }
            at += 1
        }
        return commas + 1
    }

    private mutating func integer() -> Int? {
        let negative = take(UInt8(ascii: "-"))
        let start = index
        var value = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            // Wrapping: a number too long to fit is refused below, by its length.
            value = value &* 10 &+ Int(digit)
            index += 1
        }
        let digits = index - start
        // JSON has no leading zeros, and a fraction or an exponent is not an integer here.
        guard digits > 0, digits <= Self.longestInteger, bytes[start] != UInt8(ascii: "0") || digits == 1 else { return nil }
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        return negative ? -value : value
    }

    /// Past one value of any kind, finding only where it ends: its bytes are copied for
    /// `JSONDecoder`, which checks them.
    private mutating func skipValue(depth: Int) -> Bool {
        guard depth <= Self.deepest, index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            index += 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index += 1
                    return true
                case UInt8(ascii: "\\"): index += 2
                case ..<0x20: return false
                default: index += 1
                }
            }
            return false
        case UInt8(ascii: "{"):
            return object { scanner, _, _ in scanner.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if take(UInt8(ascii: "]")) { return true }
            repeat {
                skipWhitespace()
                guard skipValue(depth: depth + 1) else { return false }
                skipWhitespace()
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]"))
        default:
            // A number, true, false or null.
            let start = index
            while index < bytes.count, Self.isScalarByte(bytes[index]) { index += 1 }
            return index > start
        }
    }

    private static func isScalarByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Nothing but whitespace left.
    private mutating func atEnd() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }
}
