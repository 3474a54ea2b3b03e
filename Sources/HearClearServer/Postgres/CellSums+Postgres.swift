import Foundation
import HearClearAnalysis
import PostgresNIO

extension CellSums {
    /// The array type each of `columns` travels as, its rows bound as one array per column for `unnest`.
    static let postgresArrayTypes: [PostgresDataType] = columns.map {
        switch $0.kind {
        case .integer: .int8Array
        case .real: .float8Array
        case .bytes: .byteaArray
        }
    }

    /// The sums a row holds in `columns`, in their order, from its cell at `first`.
    init(_ row: PostgresRandomAccessRow, from first: Int) throws {
        try self.init(
            stored: Self.columns.enumerated().map { index, column -> StoredValue in
                let cell = row[first + index]
                return switch column.kind {
                case .integer: .integer(try cell.decode(Int.self))
                case .real: .real(try cell.decode(Double.self))
                case .bytes: try cell.decode(Data?.self).map(StoredValue.bytes) ?? .null
                }
            })
    }
}

extension PostgresBindings {
    /// Sums per weekday and hour as the arrays `unnest` turns into rows of `loudness` (with the
    /// check-in counts) or `checkin_hour` (without): weekday, hour, [check-ins], then one array per
    /// column of `CellSums.columns`.
    mutating func appendSums(cells: [LocalHour], checkins: [Int]?, sums: [CellSums]) throws {
        append(cells.map(\.weekday))
        append(cells.map(\.hour))
        if let checkins { append(checkins) }
        let rows = sums.map(\.storedValues)
        for (index, column) in CellSums.columns.enumerated() {
            switch column.kind {
            case .integer: append(try rows.map { try $0[index].integer(column: column.name) })
            // Arrays bound as parameters hold no NULLs here; no bytes read as an empty histogram.
            case .bytes: append(try rows.map { ByteBuffer(bytes: try $0[index].bytes(column: column.name) ?? Data()) })
            case .real: append(try rows.map { try $0[index].real(column: column.name) })
            }
        }
    }

    /// Cells as rows of `loudness` (`LoudnessAggregate.columns`): their sums
    /// as `appendSums` binds them, then their rounding.
    mutating func appendCells(_ cells: [LoudnessAggregate]) throws {
        try appendSums(cells: cells.map(\.cell), checkins: cells.map(\.checkins), sums: cells.map(\.sums))
        append(cells.map(\.rounding))
    }

    /// A check-in's sums per hour as `appendSums` binds them, in the order of the hours.
    mutating func appendHours(_ hours: [LocalHour: CellSums]) throws {
        let rows = hours.sorted { $0.key < $1.key }
        try appendSums(cells: rows.map(\.key), checkins: nil, sums: rows.map(\.value))
    }
}
