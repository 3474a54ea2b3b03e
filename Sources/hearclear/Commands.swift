import ArgumentParser
import AudioInput
import Foundation
import HearClearClient
import HearClearCore
import LevelMeter

extension Hearclear {
    struct Register: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register this device with a server and keep its token.")

        @Option(help: "Server URL, e.g. http://127.0.0.1:8080 (default: $HEARCLEAR_SERVER).")
        var server: String?

        @Option(help: "Microphone or device model, shown to the server's operators.")
        var model: String = "unknown microphone"

        func run() async throws {
            let setup = try Setup()
            var config = setup.config
            config.server = server ?? ProcessInfo.processInfo.environment["HEARCLEAR_SERVER"] ?? config.server
            let client = APIClient(server: try config.serverURL(environment: [:]))
            var system = utsname()
            uname(&system)
            let platform = withUnsafeBytes(of: system.sysname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                + "-" + withUnsafeBytes(of: system.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let credentials = try await client.register(DeviceRegistration(model: model, platform: platform.lowercased()))
            config.deviceID = credentials.deviceID.wireString
            config.token = credentials.token
            try config.save(to: setup.paths.configFile)
            print("Registered device \(credentials.deviceID.wireString) with \(client.server.absoluteString); saved in \(setup.paths.configFile.path)")
        }
    }

    struct Calibrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save this microphone's calibration: dB added to dBFS to estimate dB SPL.",
            discussion: "Play a steady sound, read a sound level meter (dB A) and `hearclear meter` (dBFS) side by side; the calibration is their difference.")

        @Argument(help: "Calibration in dB (e.g. 112.5).")
        var db: Double?

        @Flag(help: "Forget the saved calibration (the server's default applies).")
        var clear = false

        func validate() throws {
            if clear == (db != nil) { throw ValidationError("give a calibration in dB, or --clear") }
            if let db, !(db.isFinite && (0...200).contains(db)) { throw ValidationError("the calibration must be between 0 and 200 dB") }
        }

        func run() async throws {
            let setup = try Setup()
            var config = setup.config
            config.calibrationDB = clear ? nil : db
            try config.save(to: setup.paths.configFile)
            print(clear ? "Calibration cleared." : "Calibration \(db!) dB saved.")
        }
    }

    struct VenueCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "venue", abstract: "Add, show and find venues.", subcommands: [Add.self, Show.self, Near.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Create or update a venue.")

            @Argument(help: "The venue's id: 1–64 of A-Z a-z 0-9 _ - (e.g. a Foursquare id).")
            var venueID: String
            @Option(help: "The venue's name.") var name: String
            // Unconditional: southern latitudes and western longitudes start with a minus sign.
            @Option(parsing: .unconditional, help: "Latitude in degrees.") var lat: Double
            @Option(parsing: .unconditional, help: "Longitude in degrees.") var lng: Double
            @Option(help: "IANA time zone, e.g. Europe/Paris (default: this machine's).") var timezone: String?
            @Flag(help: "Print the server's JSON.") var json = false

            func run() async throws {
                let client = try Setup().client(needsToken: true)
                let venue = try await client.saveVenue(
                    id: venueID, VenueUpsert(name: name, latitude: lat, longitude: lng, timezone: timezone ?? TimeZone.current.identifier))
                if json { try printJSON(venue) } else { print(describe(venue)) }
            }
        }

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Show a venue and its overall loudness.")
            @Argument var venueID: String
            @Flag(help: "Print the server's JSON.") var json = false

            func run() async throws {
                let venue = try await Setup().client().venue(id: venueID)
                if json { try printJSON(venue) } else { print(describe(venue)) }
            }
        }

        struct Near: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Venues near a place, nearest first.")
            // All unrecognised input: "-33.87,151.21" starts with a minus sign, like an option.
            @Argument(parsing: .allUnrecognized, help: "LATITUDE,LONGITUDE") var location: [String]
            @Option(help: "Metres around the place.") var radius: Double = 1000
            @Option(help: "At most this many venues.") var limit: Int = 20
            @Flag(help: "Print the server's JSON.") var json = false

            func run() async throws {
                let parts = location.count == 1 ? location[0].split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) } : []
                guard parts.count == 2 else { throw ValidationError("give the place as LATITUDE,LONGITUDE, e.g. -33.87,151.21") }
                let list = try await Setup().client().venues(near: parts[0], parts[1], radius: radius, limit: limit)
                if json { return try printJSON(list) }
                if list.venues.isEmpty { print("No venues within \(Int(radius)) m.") }
                for venue in list.venues {
                    print(String(format: "%7.0f m  ", venue.distanceM ?? 0) + describe(venue))
                }
            }
        }
    }

    struct CheckInCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "checkin",
            abstract: "Measure a venue and upload the check-in (5 minutes unless told; Ctrl-C ends early and still uploads).")

        @Argument(help: "The venue's id.") var venueID: String
        @Option(help: "How long to measure: 90s, 5m, 2h.") var duration = DurationArgument(seconds: 300)
        @OptionGroup var audio: AudioOptions
        @Flag(help: "Print the server's answer as JSON.") var json = false

        func validate() throws {
            guard audio.weighting == .a else { throw ValidationError("check-ins are A-weighted: venue loudness is kept in dB(A)") }
        }

        func run() async throws {
            let setup = try Setup()
            let client = try setup.client(needsToken: true)
            let outbox = Outbox(paths: setup.paths)
            let sync = Sync(outbox: outbox, client: client)
            if !(try outbox.pending().isEmpty) {
                let earlier = try await sync.run(attempts: 1)
                if !earlier.uploaded.isEmpty { note("Uploaded \(earlier.uploaded.count) earlier check-in(s).") }
            }

            let source = try audio.openSource()
            let calibration = audio.calibrationDB(setup.config)
            let header = Outbox.Header(
                venueID: venueID, startedAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)),
                intervalS: audio.interval, calibrationDB: calibration)
            let recording = try outbox.begin(header)
            var events = LoudEventDetector(calibrationDB: calibration ?? Level.defaultCalibrationDB)
            var eventCount = 0
            var progress = Progress(total: duration.seconds, calibrationDB: calibration ?? Level.defaultCalibrationDB)
            note("Checking in at \(venueID) for \(Terminal.clock(duration.seconds)); Ctrl-C ends early.")
            let outcome = try await Measurement(source: source, interval: audio.interval, weighting: .a, duration: duration.seconds).run { sample in
                try recording.append(sample)
                if events.add(sample, interval: audio.interval) != nil { eventCount += 1 }
                progress.show(sample, interval: audio.interval, events: eventCount + (events.isOpen ? 1 : 0))
            }
            progress.end()
            if outcome.stoppedBySignal { note("Stopped early: uploading what was measured.") }
            if outcome.overruns > 0 { note("\(outcome.overruns) capture overrun(s): the system dropped some audio.") }
            guard let checkIn = try recording.seal() else {
                note("Nothing was measured; no check-in.")
                throw ExitCode.failure
            }
            let result = try await sync.run()
            if let receipt = result.uploaded.first(where: { $0.id == checkIn.id }) {
                if json { try printJSON(receipt) } else { print(describe(receipt)) }
            } else if let rejection = result.rejected.first(where: { $0.id == checkIn.id }) {
                note("The server refused the check-in: \(rejection.message). It is kept in \(outbox.rejectedFolder.path).")
                throw ExitCode.failure
            } else {
                let reason = result.waiting.first { $0.id == checkIn.id }?.reason ?? "not uploaded"
                print("Saved \(checkIn.samples.count) intervals; \(reason). The check-in waits in \(outbox.folder.path): run `hearclear sync` later.")
            }
        }
    }

    struct SyncCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "sync", abstract: "Upload every check-in waiting on disk.")

        @Flag(help: "Print the server's answers as JSON (what is refused or still waiting goes to standard error).") var json = false

        func run() async throws {
            let setup = try Setup()
            let result = try await Sync(outbox: Outbox(paths: setup.paths), client: try setup.client(needsToken: true)).run()
            if json {
                try printJSON(result.uploaded)
                for rejection in result.rejected { note("\(rejection.id.wireString): refused, \(rejection.message)") }
                for waiting in result.waiting { note("\(waiting.id.wireString): still waiting, \(waiting.reason)") }
                if !result.waiting.isEmpty { throw ExitCode.failure }
                return
            }
            for receipt in result.uploaded { print(describe(receipt)) }
            for rejection in result.rejected { print("\(rejection.id.wireString): refused, \(rejection.message)") }
            for waiting in result.waiting { print("\(waiting.id.wireString): still waiting, \(waiting.reason)") }
            print("\(result.uploaded.count) uploaded, \(result.rejected.count) refused, \(result.waiting.count) waiting.")
            if !result.waiting.isEmpty { throw ExitCode.failure }
        }
    }

    struct LoudnessCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "loudness", abstract: "A venue's loudness as a weekday × hour heatmap.")

        @Argument var venueID: String
        @Flag(help: "Print the server's JSON document.") var json = false

        func run() async throws {
            let client = try Setup().client()
            let answer = try await client.loudness(venueID: venueID)
            if json {
                print(String(decoding: answer.json, as: UTF8.self))
                return
            }
            let name = try? await client.venue(id: venueID).name
            print(Terminal.standardOutput.heatmap(answer.loudness, scale: try await client.scale(), venueName: name))
        }
    }

    struct Meter: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The level meter alone: nothing is saved or uploaded.")

        @OptionGroup var audio: AudioOptions
        @Option(help: "Stop after this long: 90s, 5m, 2h (default: until Ctrl-C or the end of the file).") var duration: DurationArgument?
        @Flag(help: "Print the intervals as JSON at the end.") var json = false

        func run() async throws {
            let source = try audio.openSource()
            let calibration = audio.calibrationDB(try Setup().config)
            var samples: [Sample] = []
            let interactive = isatty(STDOUT_FILENO) == 1 && !json
            let terminal = Terminal.standardOutput
            try await Measurement(source: source, interval: audio.interval, weighting: audio.weighting, duration: duration?.seconds).run { sample in
                if json {
                    samples.append(sample)
                } else if interactive {
                    let line = terminal.meterLine(elapsed: sample.t + audio.interval, total: duration?.seconds, average: sample.avg, peak: sample.peak, calibrationDB: calibration ?? 0, events: 0)
                    FileHandle.standardOutput.write(Data(("\r\u{1B}[2K" + line).utf8))
                } else {
                    print(String(format: "%.1f %.2f %.2f", sample.t, sample.avg, sample.peak))
                }
            }
            if interactive { print("") }
            if json { try printJSON(Analysis(sampleRate: source.sampleRate, weighting: audio.weighting, interval: audio.interval, calibrationDB: calibration, samples: samples)) }
        }
    }

    struct Analyze: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Per-interval levels and loud events of a WAV recording, offline.")

        @Argument(help: "The WAV file.") var path: String
        @Option(help: "Frequency weighting: A or Z.") var weighting: Weighting = .a
        @Option(help: "dB added to dBFS to estimate dB SPL, for loud events.") var calibration: Double?
        @Option(help: "Seconds per interval.") var interval: Double = 1
        @Flag(help: "Print JSON.") var json = false
        @Flag(help: "Print CSV: t,avg,peak.") var csv = false

        func validate() throws {
            if json && csv { throw ValidationError("use either --json or --csv") }
            guard interval.isFinite, interval >= 0.1, interval <= 60 else { throw ValidationError("--interval must be between 0.1 and 60 seconds") }
        }

        func run() async throws {
            let file = try WAVFile(path: path)
            var meter = LevelMeter(sampleRate: file.sampleRate, interval: interval, weighting: weighting)
            var samples: [Sample] = []
            while let block = try file.read(maxFrames: 65_536) { samples += meter.process(block) }
            if let last = meter.finish() { samples.append(last) }
            let calibrationDB = calibration ?? (try? Setup().config.calibrationDB) ?? nil
            let analysis = Analysis(sampleRate: file.sampleRate, weighting: weighting, interval: interval, calibrationDB: calibrationDB, samples: samples)
            if json { return try printJSON(analysis) }
            if csv {
                print("t,avg,peak")
                for sample in samples { print(String(format: "%g,%.2f,%.2f", sample.t, sample.avg, sample.peak)) }
                return
            }
            print("\(path): \(file.sampleRate) Hz, \(samples.count) intervals of \(interval) s, \(weighting.rawValue)-weighted dBFS")
            print("     t     avg    peak")
            for sample in samples { print(String(format: "%6g  %6.2f  %6.2f", sample.t, sample.avg, sample.peak)) }
            if let leq = Level.energyMean(samples.map(\.avg)) { print(String(format: "Leq %.2f dBFS", leq)) }
            for event in analysis.events {
                print(String(format: "Loud event at %gs: peak %.2f dBFS, %gs", event.t, event.peak, event.durationS))
            }
        }
    }

    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the ALSA devices that can capture.")

        @Flag(help: "Print the devices as JSON.") var json = false

        func run() async throws {
            let devices = ALSACapture.captureDevices()
            if json { return try printJSON(devices.map { ["name": $0.name, "description": $0.description] }) }
            if devices.isEmpty { print("No ALSA capture devices found (is a microphone plugged in?).") }
            for device in devices { print("\(device.name)\t\(device.description)") }
        }
    }
}

/// The `--json` document of `meter` and `analyze`.
struct Analysis: Encodable {
    let sampleRate: Int
    let weighting: Weighting
    let interval: Double
    let calibrationDB: Double?
    let samples: [Sample]

    var events: [LoudEvent] {
        LoudEventDetector.events(in: samples, interval: interval, calibrationDB: calibrationDB ?? Level.defaultCalibrationDB)
    }

    enum CodingKeys: String, CodingKey {
        case sampleRate = "sample_rate", weighting, interval = "interval_s", calibrationDB = "calibration_db", samples, events
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sampleRate, forKey: .sampleRate)
        try container.encode(weighting, forKey: .weighting)
        try container.encode(interval, forKey: .interval)
        try container.encode(calibrationDB, forKey: .calibrationDB)
        try container.encode(samples, forKey: .samples)
        try container.encode(events, forKey: .events)
    }
}

func describe(_ venue: Venue) -> String {
    let level = venue.levelDB.map { String(format: "%.1f dB(A) %@", $0, venue.label ?? "") } ?? "no data yet"
    return "\(venue.id)  \(venue.name)  (\(venue.timezone))  \(level), \(venue.checkins) check-ins"
}

func describe(_ receipt: CheckInReceipt) -> String {
    let level = receipt.levelDB.map { String(format: "%.1f dB(A)", $0) } ?? "no level"
    return "\(receipt.venueID): \(level) \(receipt.label ?? ""), \(receipt.samples) samples, \(receipt.droppedSamples) dropped, \(receipt.status.rawValue)"
}
