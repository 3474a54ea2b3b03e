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

    /// Version 22's last rule: a second's music beside its neighbours'. A lone second of music
    /// among speech (a network's slip) is no longer music, while speech, whose pauses last about a
    /// second, is judged alone; seconds at the ends have one neighbour; a second nobody classified
    /// stays so and counts for no one; the mean is of whole percents, rounded half up, as the
    /// browser's meter rounds the same integers (`Math.round`).
    @Test func musicIsJudgedBesideItsNeighbours() {
        let heard: [SoundClasses?] = [
            SoundClasses(percent: 90, 10), SoundClasses(percent: 20, 80), SoundClasses(percent: 85, 5), nil, SoundClasses(percent: 50, 50),
            SoundClasses(percent: 51, 51),
        ]
        let judged = SoundClasses.judgedBesideNeighbours(heard, reach: .init(speech: 0, music: 1))
        #expect(judged.map { $0?.percent.speech } == [90, 20, 85, nil, 50, 51])
        #expect(judged.map { $0?.percent.music } == [45, 32, 43, nil, 51, 51])
        #expect(!judged[1]!.holds(.music))
        // Both classes, as a model could say.
        #expect(SoundClasses.judgedBesideNeighbours(heard, reach: .init(speech: 1, music: 1)).map { $0?.percent.speech } == [55, 65, 53, nil, 51, 51])
        // A model from before the rule.
        #expect(SoundClasses.judgedBesideNeighbours(heard, reach: .none) == heard)
    }
}
