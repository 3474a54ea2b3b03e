import Foundation

extension CheckInV2 {
    /// This check-in as the JSON a client seals and uploads: the level arrays first, in the order
    /// `Levels.CodingKeys` declares, then the rest as `encoder` writes it.
    ///
    /// Written by hand around `encoder` because no `JSONEncoder` writes keys in a chosen order:
    /// sorted, or in an order that changes from one process to the next. The order moves what
    /// gzip makes of the columns by a few percent (docs/api.md, "The order of the arrays").
    public func body(_ encoder: JSONEncoder) throws -> Data {
        struct AllButLevels: Encodable {
            let checkIn: CheckInV2
            func encode(to encoder: any Encoder) throws { try checkIn.encodeAllButLevels(to: encoder) }
        }
        let rest = try encoder.encode(AllButLevels(checkIn: self))
        var json = Data(#"{"levels":{"#.utf8)
        var first = true
        for (key, values) in levels.columns {
            if !first { json.append(UInt8(ascii: ",")) }
            first = false
            json.append(contentsOf: #""\#(key.stringValue)":"#.utf8)
            json.append(try encoder.encode(values))
        }
        json.append(UInt8(ascii: "}"))
        // `rest` is an object with the header's keys at least: its opening brace gives way to a comma.
        json.append(UInt8(ascii: ","))
        json.append(rest.dropFirst())
        return json
    }
}
