import HearClearCore
import Testing

/// Was: `hearclear venue add "My Bar"` got the server's "venue_id must be 1 to 64 of the
/// characters A-Z a-z 0-9 _ -" and no id to use instead.
@Suite struct VenueIDTests {
    @Test func aNameTypedAsAnIdIsAnsweredWithAnIdMadeOfIt() {
        #expect(VenueID.problem("4b5a-bar") == nil)
        #expect(VenueID.problem("My Bar") == "\"My Bar\" is not a venue id: it must be 1 to 64 of the characters A-Z a-z 0-9 _ -, like my-bar")
        #expect(VenueID.problem("  Café  Noir! ")?.hasSuffix(", like cafe-noir") == true)
        #expect(VenueID.problem("Zürich's Bierhalle, №2")?.hasSuffix(", like zurich-s-bierhalle-2") == true)
        #expect(VenueID.problem("!!!") == "\"!!!\" is not a venue id: it must be 1 to 64 of the characters A-Z a-z 0-9 _ -")
        #expect(VenueID.problem("") == "\"\" is not a venue id: it must be 1 to 64 of the characters A-Z a-z 0-9 _ -")
        let long = String(repeating: "ab ", count: 40)
        let made = VenueID.problem(long)?.components(separatedBy: ", like ").last ?? ""
        #expect(made.count <= 64 && VenueID.isValid(made) && !made.hasSuffix("-"), "\(made)")
    }
}
