import Foundation
import HearClearCore
import Testing

/// The JSON a client seals and uploads (`CheckInV2.body(_:)`): its level arrays in a chosen order,
/// the rest by `JSONEncoder`, read back by the server's quick reading and by `JSONDecoder` alike.
@Suite struct CheckInV2BodyTests {
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    @Test(arguments: [(true, true), (true, false), (false, true), (false, false)])
    func aBodyReadsAsTheCheckInItWasMadeFrom(details: Bool, classes: Bool) throws {
        let checkIn = CheckInV2ScanningTests.body(details: details, classes: classes)
        let body = try checkIn.body(Self.sorted)
        #expect(try JSONDecoder().decode(CheckInV2.self, from: body) == checkIn)
        #expect(CheckInV2.scanned(body) == checkIn)
    }

    @Test func irregularTimesTravelWithTheLevels() throws {
        var checkIn = CheckInV2ScanningTests.body(details: false, classes: false, seconds: 3)
        checkIn.levels.t = [0, 1.5, 3.25]
        #expect(try JSONDecoder().decode(CheckInV2.self, from: checkIn.body(Self.sorted)) == checkIn)
    }

    /// Each array beside the one it most resembles, which gzip packs tighter than the keys sorted:
    /// the bench's wire size case measures what that is worth.
    @Test func theLevelArraysComeFirstInTheirChosenOrder() throws {
        let text = String(decoding: try CheckInV2ScanningTests.body().body(Self.sorted), as: UTF8.self)
        let keys = ["levels", "peak", "oct_4000", "oct_2000", "oct_1000", "oct_500", "avg", "c_avg", "fast_max", "calibration_db"]
        let places = try keys.map { key in try #require(text.range(of: #""\#(key)":"#)?.lowerBound, "\(key) is missing") }
        #expect(places == places.sorted(), "\(text.prefix(300))")
        #expect(text.hasPrefix(#"{"levels":{"peak":["#))
    }
}
