/// A venue's id: the client's external id (like a Foursquare id), checked the same way by the
/// server and by the client before it measures for minutes.
public enum VenueID {
    public static func isValid(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    public static let rule = "1 to 64 of the characters A-Z a-z 0-9 _ -"
}
