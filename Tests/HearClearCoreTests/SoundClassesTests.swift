import HearClearCore
import Testing

/// Whether a second holds speech or music is decided once, on the value as it is shown and
/// uploaded (whole percent): `analyze --json` once said music in 15 % of a clip's seconds while
/// its own seconds, printed to the hundredth, said 25 %.
@Suite struct SoundClassesTests {
    @Test func aSecondIsDetectedAsItIsShownAndUploaded() {
        // Printed as 0.50 and uploaded as 50: detected, by the client as by the server.
        let borderline = SoundClasses(speech: 0.4951, music: 0.497)
        #expect(borderline.percent == (50, 50))
        #expect(borderline.holds(.speech) && borderline.holds(.music))
        #expect(borderline.holds(.music) == borderline.rounded.holds(.music))
        // Printed as 0.49: not.
        let below = SoundClasses(speech: 0.4949, music: 0.49)
        #expect(!below.holds(.speech) && !below.holds(.music))
        #expect(borderline.words == "speech and music" && below.words == "other")
    }
}
