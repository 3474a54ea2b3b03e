/// The stores every store-agnostic suite runs on: the embedded SQLite default and PostgreSQL.
public enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite, postgres
    public var description: String { rawValue }
}
