import Foundation
import HearClearCore

/// A sealed check-in waiting in the outbox: where it is and the little it says about itself,
/// read without decoding its levels. Decoding a two-hour check-in took 4 MB (Foundation's
/// `JSONDecoder` maps every value of the document first) only to encode it again: its file goes
/// up as the bytes on disk, gzip-compressed, and is decoded only when a server too old for API v2
/// needs v1's objects, or when a person lists the outbox.
public struct PendingCheckIn: Sendable {
    public let file: URL
    public let id: UUID
    public let venueID: String
    public let startedAt: Date
    /// API v2's columns (what clients seal now), or API v1's objects (what older clients sealed).
    public let isVersion2: Bool

    /// What the file says of itself; nil when it is not a check-in this client wrote. The outbox's
    /// files are compact JSON of this client's own encoder, where each of these keys occurs once
    /// (levels, classes and events hold numbers and other keys only).
    init?(file: URL, data: Data) {
        guard let id = Self.string(after: #""id":""#, in: data).flatMap(UUID.init(uuidString:)),
            let venueID = Self.string(after: #""venue_id":""#, in: data),
            let startedAt = Self.string(after: #""started_at":""#, in: data).flatMap(Timestamp.parse)
        else { return nil }
        self.file = file
        self.id = id
        self.venueID = venueID
        self.startedAt = startedAt
        isVersion2 = data.firstRange(of: Data(#""levels":{"#.utf8)) != nil
    }

    /// What a check-in file says of itself (one set aside in `rejected/`, say); nil when it cannot be read.
    public static func read(_ file: URL) -> PendingCheckIn? {
        (try? Data(contentsOf: file)).flatMap { PendingCheckIn(file: file, data: $0) }
    }

    /// The check-in itself, decoded from its file.
    public func checkIn() throws -> CheckIn {
        let data = try Data(contentsOf: file)
        return isVersion2 ? try JSONDecoder.outbox.decode(CheckInV2.self, from: data).checkIn : try JSONDecoder.outbox.decode(CheckIn.self, from: data)
    }

    /// The text of the JSON string that follows `key` (which ends with its opening quote), when it
    /// holds no escapes: ids, venue ids and timestamps never do.
    static func string(after key: String, in data: Data) -> String? {
        guard let start = data.firstRange(of: Data(key.utf8))?.upperBound,
            let end = data[start...].firstIndex(of: UInt8(ascii: "\""))
        else { return nil }
        let value = data[start..<end]
        guard !value.contains(UInt8(ascii: "\\")) else { return nil }
        return String(decoding: value, as: UTF8.self)
    }
}
