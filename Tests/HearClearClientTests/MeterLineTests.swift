import HearClearClient
import HearClearCore
import Testing

/// The live meter's line and what the client says after measuring silence.
@Suite struct MeterLineTests {
    @Test func aSilentIntervalAsksWhetherTheMicrophoneIsMuted() {
        let terminal = Terminal(colors: false)
        let silent = terminal.meterLine(elapsed: 3, total: 60, average: -160, peak: -160, calibrationDB: nil, events: 0, classes: SoundClasses(speech: 0, music: 0))
        #expect(silent.hasSuffix("events 0  no sound: is the microphone muted?"), "\(silent)")
        let quiet = terminal.meterLine(elapsed: 3, total: 60, average: -90, peak: -80, calibrationDB: nil, events: 0)
        #expect(quiet.hasSuffix("events 0"), "\(quiet)")
    }

    @Test func silenceIsSaidWithWhatTheServerDoesWithIt() {
        let sound = (0..<30).map { Sample(t: Double($0), avg: -40, peak: -30) }
        #expect(Terminal.silenceNote(sound) == nil)
        var partly = sound
        partly[29] = Sample(t: 29, avg: -160, peak: -160)
        #expect(Terminal.silenceNote(partly) == "1 of 30 intervals held no sound at all (below -120 dBFS): the microphone was muted or gave zeros, and the server leaves that one out.")
        let muted = sound.map { Sample(t: $0.t, avg: -130, peak: -125) }
        #expect(Terminal.silenceNote(muted)?.hasSuffix("so the check-in cannot count. Unmute it and check in again.") == true)
    }
}
