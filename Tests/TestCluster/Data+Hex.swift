import Foundation

extension Data {
    /// Bytes from hexadecimal digits, as SQLite's `hex()` and PostgreSQL's `encode(…, 'hex')` print
    /// a blob: how tests read the samples blobs back through a store's SQL.
    public init(hexDigits: some StringProtocol) {
        self.init(capacity: hexDigits.count / 2)
        var index = hexDigits.startIndex
        while index < hexDigits.endIndex {
            let next = hexDigits.index(index, offsetBy: 2)
            append(UInt8(hexDigits[index..<next], radix: 16)!)
            index = next
        }
    }
}
