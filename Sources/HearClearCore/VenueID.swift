import Foundation

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

    /// Why `id` is not a venue id, with one made of it where it can be (`"Café Noir"`: like
    /// `cafe-noir`); nil when it is one. A person who typed a venue's name as its id needs an id,
    /// not the rule alone.
    public static func problem(_ id: String) -> String? {
        guard !isValid(id) else { return nil }
        return "\"\(id)\" is not a venue id: it must be \(rule)" + (made(of: id).map { ", like \($0)" } ?? "")
    }

    /// An id made of a name: its letters without accents, in lower case, each run of other
    /// characters a hyphen.
    static func made(of name: String) -> String? {
        var id = ""
        for character in name.folding(options: .diacriticInsensitive, locale: nil).lowercased().unicodeScalars {
            if character.isASCII, character.properties.isAlphabetic || ("0"..."9").contains(character) || character == "_" {
                id.unicodeScalars.append(character)
            } else if !id.isEmpty, !id.hasSuffix("-") {
                id += "-"
            }
        }
        var made = String(id.prefix(64))
        while made.hasSuffix("-") { made.removeLast() }
        return isValid(made) ? made : nil
    }
}
