import ArgumentParser
import HearClearClient
import HearClearCore

extension Hearclear {
    struct Calibrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save this microphone's calibration: dB added to dBFS to estimate dB SPL.",
            discussion: """
                Play a steady sound beside a sound level meter set to dB(A), and give its reading: `hearclear calibrate --reading 71.5` \
                measures the sound and saves the difference. A calibration known already is saved as it is: `hearclear calibrate 112.5`.
                """)

        @Argument(help: "Calibration in dB (e.g. 112.5); without one, shows the saved calibration.", transform: AudioOptions.decibels)
        var db: Double?

        @Option(
            help: ArgumentHelp("What a sound level meter beside the microphone reads of a steady sound, in dB(A) (a 94 dB calibrator at 1 kHz reads 94): the microphone measures the same sound, and the difference is saved.", valueName: "dB"),
            transform: AudioOptions.decibels)
        var reading: Double?

        @OptionGroup var source: AudioSourceOptions

        @Option(help: "How long to measure the sound for --reading: 10s, 1m.") var duration = DurationArgument(seconds: CalibrationRule.standard.measuredS)

        @Flag(help: "Forget the saved calibration (the server's default applies).")
        var clear = false

        func validate() throws {
            if [clear, db != nil, reading != nil].filter({ $0 }).count > 1 {
                throw ValidationError("give a calibration in dB, a --reading to measure against, or --clear: one of them")
            }
            if let db, !Level.plausibleDB.contains(db) { throw ValidationError("the calibration must be \(Level.plausibleDBText) dB") }
            if let reading, !Level.plausibleDB.contains(reading) { throw ValidationError("--reading must be \(Level.plausibleDBText) dB(A)") }
            if reading == nil && (source.device != nil || source.file != nil || source.rate != nil) {
                throw ValidationError("--device, --file and --rate say what to measure for --reading: give the sound level meter's --reading")
            }
        }

        func run() async throws {
            let setup = try Setup()
            var config = setup.config
            guard clear || db != nil || reading != nil else {
                print(config.calibrationDB.map { "Calibration: \(Self.format($0)) dB (saved in \(setup.paths.configFile.path))." }
                    ?? "No calibration saved: the server applies its default (\(Self.format(Level.defaultCalibrationDB)) dB unless its operators set one). `hearclear calibrate --reading DB` measures one.")
                return
            }
            var calibration = db
            if let reading {
                let measured = try await measure(reading: reading)
                print(measured.saying(reading: reading))
                calibration = measured.calibrationDB
            }
            config.calibrationDB = calibration
            try config.save(to: setup.paths.configFile)
            print(calibration.map { "Calibration \(Self.format($0)) dB saved." } ?? "Calibration cleared.")
        }

        /// The steady sound as the microphone hears it, with the live meter on standard error;
        /// any calibration saved before plays no part (the meter shows dBFS).
        func measure(reading: Double) async throws -> MicrophoneCalibration {
            let audio = try source.open()
            var intervals: [(sample: Sample, seconds: Double)] = []
            let planned = source.plannedSeconds(duration.seconds, source: audio) ?? duration.seconds
            var progress = Progress(total: planned, calibrationDB: nil, interval: 1)
            note("Measuring the sound for \(Terminal.clock(planned)); keep it steady.")
            try await Measurement(source: audio, interval: 1, weighting: .a, duration: duration.seconds).run { sample, seconds in
                intervals.append((sample, seconds))
                progress.show(sample, seconds: seconds)
            }
            progress.end()
            noteFileProblems(of: audio)
            do {
                return try MicrophoneCalibration(reading: reading, intervals: intervals)
            } catch {
                throw CommandFailure("\(error); nothing saved")
            }
        }

        static func format(_ db: Double) -> String { String(format: "%g", db) }
    }
}
