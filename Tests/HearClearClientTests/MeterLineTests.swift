import Foundation
import HearClearClient
import HearClearCore
import Testing

/// The live meter's line and what the client says after measuring silence, and of it when it went up.
@Suite struct MeterLineTests {
    @Test func aSilentIntervalAsksWhetherTheMicrophoneIsMuted() {
        let terminal = Terminal(colors: false)
        let silent = terminal.meterLine(elapsed: 3, total: 60, average: -160, peak: -160, calibrationDB: nil, events: 0, classes: SoundClasses(speech: 0, music: 0))
        #expect(silent.hasSuffix("events 0  no sound: is the microphone muted?"), "\(silent)")
        let quiet = terminal.meterLine(elapsed: 3, total: 60, average: -90, peak: -80, calibrationDB: nil, events: 0)
        #expect(quiet.hasSuffix("events 0"), "\(quiet)")
    }

    /// Was: `meter` on a muted microphone ended on "Leq -160.00 dBFS over 00:03, 0 loud events".
    @Test func theRunsSummarySaysHowLongItHeldNoSound() {
        var meter = LiveMeter(terminal: Terminal(colors: false), total: nil, calibrationDB: nil, interval: 1)
        for second in 0..<3 { _ = meter.line(after: Sample(t: Double(second), avg: -40, peak: -30), seconds: 1) }
        #expect(meter.summary == "Leq -40.00 dBFS over 00:03, 0 loud events")
        for second in 3..<5 { _ = meter.line(after: Sample(t: Double(second), avg: -160, peak: -160), seconds: 1) }
        #expect(meter.summary == "Leq -42.22 dBFS over 00:05, 0 loud events; 00:02 of no sound at all (is the microphone muted?)")
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

    /// Was: a muted check-in synced later was "too_short: too short to count towards the venue's
    /// levels", after minutes of measuring.
    @Test func aReceiptOfSilenceSaysWhyItDoesNotCount() {
        let silent = CheckInReceipt(id: UUID(), venueID: "bar", samples: 15, droppedSamples: 15, levelDB: nil, label: nil, status: .tooShort)
        #expect(silent.meaning == "no second of it held sound: the microphone gave silence (was it muted?), so it does not count")
        let short = CheckInReceipt(id: UUID(), venueID: "bar", samples: 9, droppedSamples: 0, levelDB: 60, label: "quiet", status: .tooShort)
        #expect(short.meaning == CheckInStatus.tooShort.meaning)
        #expect(CheckInReceipt(id: UUID(), venueID: "bar", samples: 300, droppedSamples: 2, levelDB: 60, label: "quiet", status: .accepted).meaning == nil)
    }
}
