import Foundation

/// A column of derived sums and the kind of value it holds, as both stores declare and bind it.
public struct StoredColumn: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case integer, real, bytes
    }

    public var name: String
    public var kind: Kind

    public init(_ name: String, _ kind: Kind) {
        self.name = name
        self.kind = kind
    }
}

/// One value of a `StoredColumn`, as a store reads or binds it: the analysis knows no store's types.
public enum StoredValue: Sendable, Equatable {
    case integer(Int)
    case real(Double)
    case bytes(Data)
    /// NULL, which a bytes column may hold (a histogram reads it as empty).
    case null

    /// A stored value of another kind than its column's.
    public struct Unexpected: Error, CustomStringConvertible {
        public var column: String
        public var found: String
        public var description: String { "column \(column): unexpected \(found)" }

        public init(column: String, found: String) {
            self.column = column
            self.found = found
        }
    }

    public func integer(column: String) throws -> Int {
        guard case .integer(let value) = self else { throw Unexpected(column: column, found: "\(self) for an integer") }
        return value
    }

    /// A real column may come back as an integer where the store keeps a whole number so.
    public func real(column: String) throws -> Double {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: throw Unexpected(column: column, found: "\(self) for a real")
        }
    }

    public func bytes(column: String) throws -> Data? {
        switch self {
        case .bytes(let value): value
        case .null: nil
        default: throw Unexpected(column: column, found: "\(self) for bytes")
        }
    }
}
