import Foundation

extension CheckInV2 {
    /// This check-in as the JSON a client seals and uploads: the level arrays first, in
    /// `Levels.bodyOrder`, then the rest as `encoder` writes it.
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
        for (key, values) in levels.columns(in: Levels.bodyOrder) {
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

extension CheckInV2.Levels {
    /// The order a body's level arrays are written in: each beside the one it most resembles, from
    /// the peak through the octave bands, highest first, to the A-weighted mean, the C-weighted mean
    /// and the Fast maximum. gzip finds more of an array in its neighbour then: 2 % fewer bytes than
    /// the keys sorted on recordings with speech, the same on music (docs/api.md).
    static let bodyOrder: [CodingKeys] = [.t, .peak, .oct4000, .oct2000, .oct1000, .oct500, .avg, .cAvg, .fastMax]

    /// The arrays present, by key, in `order`.
    func columns(in order: [CodingKeys]) -> [(CodingKeys, any Encodable)] {
        order.compactMap { key in
            switch key {
            case .t: t.map { (key, $0) }
            case .avg: (key, avg)
            case .peak: (key, peak)
            case .fastMax: fastMax.map { (key, $0) }
            case .cAvg: cAvg.map { (key, $0) }
            case .oct500: oct500.map { (key, $0) }
            case .oct1000: oct1000.map { (key, $0) }
            case .oct2000: oct2000.map { (key, $0) }
            case .oct4000: oct4000.map { (key, $0) }
            }
        }
    }
}
