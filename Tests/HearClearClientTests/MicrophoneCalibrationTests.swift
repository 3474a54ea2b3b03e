import HearClearClient
import HearClearCore
import Testing

/// `hearclear calibrate --reading`: the meter's reading less the microphone's Leq, and the sounds
/// that would make that difference something other than the microphone's.
@Suite struct MicrophoneCalibrationTests {
    static func intervals(_ levels: [Double], peakAbove: Double = 3, last: Double = 1) -> [(sample: Sample, seconds: Double)] {
        levels.enumerated().map { index, level in
            (Sample(t: Double(index), avg: level, peak: level + peakAbove), index == levels.count - 1 ? last : 1)
        }
    }

    @Test func theCalibrationIsTheReadingLessTheLeqToTheTenth() throws {
        // 10 s, five at −40 and five at −38: Leq −38.89, steady within 2 dB.
        let calibration = try MicrophoneCalibration(reading: 71.5, intervals: Self.intervals(Array(repeating: -40, count: 5) + Array(repeating: -38, count: 5)))
        #expect(abs(calibration.leqDBFS + 38.89) < 0.01 && calibration.rangeDB == 2 && calibration.seconds == 10)
        #expect(calibration.calibrationDB == 110.4)
        #expect(calibration.saying(reading: 71.5) == "Leq -38.89 dBFS over 00:10, steady within 2.0 dB: 71.5 dB(A) on the meter makes the calibration 110.4 dB.")
    }

    /// A last, partial interval weighs by its length in the Leq and is left out of the steadiness:
    /// a sound cut off mid-second (the end of a file) is not an unsteady one.
    @Test func aLastPartialIntervalDoesNotMakeTheSoundUnsteady() throws {
        let calibration = try MicrophoneCalibration(reading: 70, intervals: Self.intervals(Array(repeating: -40, count: 6) + [-60], last: 0.1))
        #expect(calibration.rangeDB == 0 && abs(calibration.seconds - 6.1) < 1e-9)
        #expect(calibration.calibrationDB == 110.1)
    }

    @Test func soundsThatWouldNotCalibrateAreRefusedWithWhatToDo() {
        #expect(throws: MicrophoneCalibration.Problem.tooShort(seconds: 4)) {
            try MicrophoneCalibration(reading: 70, intervals: Self.intervals([-40, -40, -40, -40]))
        }
        #expect(throws: MicrophoneCalibration.Problem.unsteady(rangeDB: 3.5, seconds: 6)) {
            try MicrophoneCalibration(reading: 70, intervals: Self.intervals([-40, -40, -40, -36.5, -40, -40]))
        }
        #expect(throws: MicrophoneCalibration.Problem.silent(leqDBFS: -95)) {
            try MicrophoneCalibration(reading: 70, intervals: Self.intervals(Array(repeating: -95, count: 6)))
        }
        #expect(throws: MicrophoneCalibration.Problem.clipped(peakDBFS: -0.5)) {
            try MicrophoneCalibration(reading: 70, intervals: Self.intervals(Array(repeating: -3.5, count: 6)))
        }
        #expect(throws: MicrophoneCalibration.Problem.implausible(calibrationDB: 230)) {
            try MicrophoneCalibration(reading: 190, intervals: Self.intervals(Array(repeating: -40, count: 6)))
        }
        #expect(
            "\(MicrophoneCalibration.Problem.unsteady(rangeDB: 7.25, seconds: 10))"
                == "the sound was not steady: its level moved over 7.2 dB in 00:10, so the meter and the microphone may have read different moments of it. Calibrate against a steady sound (pink noise, a fan), within 3 dB")
    }
}
