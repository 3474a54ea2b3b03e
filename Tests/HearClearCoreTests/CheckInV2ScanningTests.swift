import Foundation
import HearClearCore
import Testing

/// The quick reading of an API v2 body (`CheckInV2.scanned`) either reads it exactly as
/// `JSONDecoder` does or leaves it to `JSONDecoder`: it must never accept a body the decoder
/// refuses, nor read one differently.
@Suite struct CheckInV2ScanningTests {
    static func body(details: Bool = true, classes: Bool = true, seconds: Int = 40) -> CheckInV2 {
        let avg = (0..<seconds).map { -400 + ($0 * 37) % 150 }
        func column(_ offset: Int) -> [Int] { avg.enumerated().map { $1 + offset + $0 % 7 } }
        return CheckInV2(
            id: UUID(uuidString: "7d0c6b1e-5f3a-4b2c-9d8e-0a1b2c3d4e5f")!, venueID: "café-mercedes", startedAt: Date(timeIntervalSince1970: 1_790_000_000.5),
            intervalS: 1, weighting: .a, calibrationDB: 112.5,
            levels: .init(
                avg: avg, peak: column(60), fastMax: details ? column(20) : nil, cAvg: details ? column(30) : nil, oct500: details ? column(-30) : nil,
                oct1000: details ? column(-20) : nil, oct2000: details ? column(-40) : nil, oct4000: details ? column(-90) : nil),
            classes: classes ? .init(speech: avg.map { ($0 + 400) % 101 }, music: avg.map { 100 - ($0 + 400) % 101 }) : nil,
            classesModel: classes ? 4 : nil, events: [LoudEvent(t: 12, peak: -3.5, durationS: 2, sound: .music)])
    }

    static func json(_ checkIn: CheckInV2, pretty: Bool = false) throws -> Data {
        let encoder = JSONEncoder()
        if pretty { encoder.outputFormatting = [.prettyPrinted] }
        return try encoder.encode(checkIn)
    }

    @Test(arguments: [(true, true), (true, false), (false, true), (false, false)])
    func aBodyAsClientsSendItReadsAsJSONDecoderReadsIt(details: Bool, classes: Bool) throws {
        for pretty in [false, true] {
            let data = try Self.json(Self.body(details: details, classes: classes), pretty: pretty)
            let scanned = try #require(CheckInV2.scanned(data))
            #expect(scanned == (try JSONDecoder().decode(CheckInV2.self, from: data)))
            #expect(scanned == Self.body(details: details, classes: classes))
        }
    }

    @Test func anEmptyCheckInAndExtremeIntegersRead() throws {
        let text = #"""
            {"id":"7d0c6b1e-5f3a-4b2c-9d8e-0a1b2c3d4e5f","venue_id":"v","started_at":"2026-11-20T21:15:00+11:00",
             "levels":{"avg":[],"peak":[-0, 0, -999999999999999999, 999999999999999999]},"classes":{"speech":[],"music":[]}}
            """#
        let scanned = try #require(CheckInV2.scanned(Data(text.utf8)))
        #expect(scanned == (try JSONDecoder().decode(CheckInV2.self, from: Data(text.utf8))))
        #expect(scanned.levels.peak == [0, 0, -999_999_999_999_999_999, 999_999_999_999_999_999])
    }

    /// Each of these is valid JSON that the quick reading does not take (or is not valid JSON at
    /// all): they go to `JSONDecoder`, which reads them or says what is wrong.
    @Test(arguments: [
        #"{$HEADER,"levels":{"avg":[1.0],"peak":[1]}}"#,  // a fraction
        #"{$HEADER,"levels":{"avg":[1e1],"peak":[1]}}"#,  // an exponent
        #"{$HEADER,"levels":{"avg":[01],"peak":[1]}}"#,  // a leading zero
        #"{$HEADER,"levels":{"avg":[-],"peak":[1]}}"#,
        #"{$HEADER,"levels":{"avg":[1234567890123456789],"peak":[1]}}"#,  // longer than always fits
        #"{$HEADER,"levels":{"avg":[99999999999999999999999999],"peak":[1]}}"#,  // would overflow
        #"{$HEADER,"levels":{"t":[0.5],"avg":[1],"peak":[1]}}"#,  // irregular times
        #"{$HEADER,"levels":{"avg":[1],"peak":[1],"fast_max":null}}"#,
        #"{$HEADER,"levels":{"avg":[1],"peak":[1],"loudest":[1]}}"#,  // a key it does not know
        #"{$HEADER,"levels":{"avg":[1],"peak":[1],"avg":[2]}}"#,  // a key twice
        #"{$HEADER,"levels":{"avg":[1],"peak":[1]},"levels":{"avg":[1],"peak":[1]}}"#,
        #"{$HEADER,"levels":{"avg":[1],"peak":[1]},"classes":null}"#,
        #"{$HEADER,"levels":{"avg":[1],"peak":[1]},"classes":{"speech":[1]}}"#,
        #"{$HEADER,"levels":{"a\u0076g":[1],"peak":[1]}}"#,  // an escaped key
        #"{$HEADER,"levels":{"avg":[1,],"peak":[1]}}"#,  // a trailing comma
        #"{$HEADER,"levels":{"avg":[1],"peak":[1]},}"#,
        #"{$HEADER,"levels":{"avg":[1],"peak":[1]}} x"#,  // after the end
        #"{$HEADER,"levels":{"avg":[1] "peak":[1]}}"#,
        #"{$HEADER,"levels":{"avg":[1],"peak":[1]}"#,  // cut short
        #"{$HEADER,"levels":{"avg":[1],"peak":[1]},"events":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#,
        #"[{$HEADER,"levels":{"avg":[1],"peak":[1]}}]"#,
        "",
    ])
    func uncommonFormsAreLeftToJSONDecoder(_ text: String) {
        #expect(CheckInV2.scanned(Data(text.replacingOccurrences(of: "$HEADER", with: Self.header).utf8)) == nil)
    }

    static let header = #""id":"7d0c6b1e-5f3a-4b2c-9d8e-0a1b2c3d4e5f","venue_id":"v","started_at":"2026-11-20T21:15:00+11:00""#

    @Test func theSameFormsMadeCommonAreRead() {
        for text in [#"{$HEADER,"levels":{"avg":[1],"peak":[1]}}"#, #"{$HEADER,"levels":{"avg":[1],"peak":[1]},"events":[]} "#] {
            #expect(CheckInV2.scanned(Data(text.replacingOccurrences(of: "$HEADER", with: Self.header).utf8)) != nil)
        }
    }

    /// Every one-byte change to a body — a byte dropped, doubled or replaced by one that matters
    /// to JSON — is either read as `JSONDecoder` reads it or left to it, never read where the
    /// decoder refuses.
    @Test func noChangeToABodyIsReadOtherwiseThanByJSONDecoder() throws {
        let original = [UInt8](try Self.json(Self.body(seconds: 3)))
        let replacements = Array(#"{}[]:,"\ -.0159eEnul"#.utf8) + [0x00, 0x1F, 0xC3, 0xFF]
        var read = 0, leftToDecoder = 0
        for index in original.indices {
            var changes = [original.prefix(index) + original.suffix(from: index + 1), original.prefix(index + 1) + original.suffix(from: index)]
            for byte in replacements where byte != original[index] {
                var changed = original
                changed[index] = byte
                changes.append(changed[...])
            }
            for change in changes {
                let data = Data(change)
                guard let scanned = CheckInV2.scanned(data) else {
                    leftToDecoder += 1
                    continue
                }
                read += 1
                let decoded = try? JSONDecoder().decode(CheckInV2.self, from: data)
                #expect(scanned == decoded, "\(String(decoding: change, as: UTF8.self))")
            }
        }
        // Both ways were taken: the check above saw bodies read quickly, and refusals left to the decoder.
        #expect(read > 1000 && leftToDecoder > 1000)
    }
}
