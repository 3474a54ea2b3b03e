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

    struct VenueCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "venue", abstract: "Add, show and find venues.", subcommands: [Add.self, Show.self, Find.self, Near.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Create or update a venue.", discussion: "A new venue needs --name, --lat and --lng; an update changes what it is given.")

            @Argument(help: "The venue's id: 1–64 of A-Z a-z 0-9 _ - (e.g. a Foursquare id).")
            var venueID: String
            @Option(help: "The venue's name (default: unchanged).") var name: String?
            // Unconditional: southern latitudes and western longitudes start with a minus sign.
            @Option(parsing: .unconditional, help: "Latitude in degrees (default: unchanged).") var lat: Double?
            @Option(parsing: .unconditional, help: "Longitude in degrees (default: unchanged).") var lng: Double?
            @Option(help: "IANA time zone, e.g. Europe/Paris (default: the venue's own; for a new venue, this computer's if its clock is the venue's).")
            var timezone: String?
            @Option(help: "What sort of place it is; estimates for unmeasured hours lean on venues of the same kind (default: unchanged).")
            var kind: VenueKind?
            @Flag(help: "Print the server's JSON.") var json = false

            func validate() throws {
                if let problem = VenueID.problem(venueID) { throw ValidationError(problem) }
            }

            func run() async throws {
                let client = try Setup().client(needsToken: true)
                let stored = try await storedVenue(client)
                // What is not given stays as stored: saying a venue's kind does not mean typing its name and place again.
                guard let name = name ?? stored?.name, let lat = lat ?? stored?.latitude, let lng = lng ?? stored?.longitude else {
                    throw ValidationError("\(venueID) is a new venue: give its --name, --lat and --lng")
                }
                // The venue's own time zone unless told, as a change of its name must not move its hours;
                // for a new venue, this computer's where it can be the venue's.
                let timeZone = try timezone ?? stored?.timezone ?? VenueTimeZone.forNewVenue(at: Coordinate(latitude: lat, longitude: lng))
                let venue = try await client.saveVenue(id: venueID, VenueUpsert(name: name, latitude: lat, longitude: lng, timezone: timeZone, kind: kind))
                if json { try printJSON(venue) } else { print(describe(venue)) }
            }

            /// The venue as the server keeps it; `nil` for a new one.
            func storedVenue(_ client: APIClient) async throws -> Venue? {
                do {
                    return try await client.venue(id: venueID)
                } catch let failure as APIClient.Failure {
                    guard case .server(404, _, _) = failure else { throw failure }
                    return nil
                }
            }
        }

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Show a venue, its overall loudness, its place and its public page.")
            @Argument var venueID: String
            @Flag(help: "Print the server's JSON.") var json = false

            func validate() throws {
                try checkVenueIDToLookUp(venueID)
            }

            func run() async throws {
                let client = try Setup().client()
                let venue = try await client.venue(id: venueID)
                if json { return try printJSON(venue) }
                print(describe(venue))
                // The page is what a person passes on to a friend who cannot hear well, who has no terminal.
                print("  at \(String(format: "%.5f, %.5f", venue.latitude, venue.longitude)) · its page: \(client.publicPage(ofVenue: venue.id).absoluteString)")
            }
        }

        struct Find: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Venues whose name holds every word given, in any order, case and accents: their ids, to check in.")
            @Argument(help: "Words of the venue's name, e.g. moon bar (none with --near: every venue there).") var words: [String] = []
            // Unconditional: southern latitudes start with a minus sign.
            @Option(
                parsing: .unconditional,
                help: ArgumentHelp("Only venues near this place, nearest first, e.g. -33.87,151.21, or near a venue (its id).", valueName: "latitude,longitude|venue-id"))
            var near: String?
            @Option(help: "Metres around the place of --near.") var radius: Double = 1000
            @Option(help: "At most this many venues.") var limit: Int = 20
            @Flag(help: "Print the server's JSON.") var json = false

            func validate() throws {
                if words.joined().allSatisfy(\.isWhitespace) && near == nil { throw ValidationError("give a word of the venue's name, or --near a place") }
                if let near, NearPlace(near) == nil { throw ValidationError("--near must be \(NearPlace.rule)") }
            }

            func run() async throws {
                let name = words.joined(separator: " ")
                let client = try Setup().client()
                let nearPlace = near.flatMap { NearPlace($0) }
                let place = try await nearPlace?.coordinate(client)
                let named = name.allSatisfy(\.isWhitespace) ? nil : name
                let list = try await client.venues(named: named, near: place, radius: radius, limit: limit)
                if json { return try printJSON(list) }
                if list.venues.isEmpty, let named {
                    let within = place == nil ? "" : " within \(Int(radius)) m"
                    print("No venue\(within) has \(named.split(whereSeparator: \.isWhitespace).count == 1 ? "“\(named)”" : "every word of “\(named)”") in its name.")
                }
                for venue in list.venues {
                    print((venue.distanceM.map { String(format: "%7.0f m  ", $0) } ?? "") + describe(venue))
                }
                if named == nil, let nothing = Terminal.nothingNear(list.venues.map(\.id), around: nearPlace?.venueID, within: radius) { print(nothing) }
                if list.venues.count == limit { print(Terminal.listedAtMost(limit) + ", or add a word.") }
            }
        }

        struct Near: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Venues near a place, nearest first.")
            // All unrecognised input: "-33.87,151.21" starts with a minus sign, like an option.
            // Several words too: "-33.87, 151.21" pasted with a space arrives as two.
            @Argument(parsing: .allUnrecognized, help: "LATITUDE,LONGITUDE, or a venue's id (near it)") var location: [String]
            @Option(help: "Metres around the place.") var radius: Double = 1000
            @Option(help: "At most this many venues.") var limit: Int = 20
            @Flag(help: "Print the server's JSON.") var json = false

            private var place: NearPlace {
                get throws {
                    guard let place = NearPlace(location.joined()) else { throw ValidationError("give the place as \(NearPlace.rule)") }
                    return place
                }
            }

            func validate() throws {
                _ = try place
            }

            func run() async throws {
                let client = try Setup().client()
                let asked = try place
                let list = try await client.venues(near: try await asked.coordinate(client), radius: radius, limit: limit)
                if json { return try printJSON(list) }
                for venue in list.venues {
                    print(String(format: "%7.0f m  ", venue.distanceM ?? 0) + describe(venue))
                }
                if let nothing = Terminal.nothingNear(list.venues.map(\.id), around: asked.venueID, within: radius) { print(nothing) }
                if list.venues.count == limit { print(Terminal.listedAtMost(limit) + ".") }
            }
        }
    }

    struct CheckInCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "checkin",
            abstract: "Measure a venue and upload the check-in (5 minutes unless told; Ctrl-C ends early and still uploads).",
            discussion: "Check-ins are A-weighted: venue loudness is kept in dB(A).")

        @Argument(help: "The venue's id.") var venueID: String
        @Option(help: "How long to measure: 90s, 5m, 2h.") var duration = DurationArgument(seconds: 300)
        @OptionGroup var audio: AudioOptions
        @Option(help: ArgumentHelp(
            "When the recording of --file began, e.g. 2026-11-20T21:15:00+11:00, or 2026-11-20 21:15 on this computer's clock (default: the file's modification time less its length).",
            valueName: "moment")) var startedAt: MomentArgument?
        @Flag(help: "Print the server's answer as JSON.") var json = false

        func validate() throws {
            try checkVenueIDToLookUp(venueID)
            if startedAt != nil && audio.file == nil { throw ValidationError("--started-at is for recordings: give the --file it began") }
            // Refused at the end, hours of measuring would be lost.
            if duration.seconds > CheckIn.longestSeconds {
                throw ValidationError(
                    "--duration: a check-in is at most \(Int(CheckIn.longestSeconds / 3600)) hours (the server takes none longer); measure a longer stretch in parts")
            }
            // The server counts every sum in seconds (docs/analysis.md): a part of a second would weigh as a whole one.
            if audio.interval < 1 || audio.interval != audio.interval.rounded() {
                throw ValidationError("--interval must be a whole number of seconds for a check-in (1 to 60): a venue's levels count seconds")
            }
            // Refused at the end, as too short to count, minutes of measuring would be lost. A
            // recording shorter than that is sent as it is, and the receipt says so.
            let intervals = Int((duration.seconds / audio.interval).rounded(.up))
            if intervals < CheckIn.fewestCountedIntervals {
                func spoken(_ seconds: Double) -> String {
                    seconds >= 120 && seconds.truncatingRemainder(dividingBy: 60) == 0 ? "\(Int(seconds / 60)) minutes" : "\(Int(seconds)) s"
                }
                throw ValidationError(
                    "\(spoken(duration.seconds)) at --interval \(Int(audio.interval)) make\(intervals == 1 ? "s" : "") \(intervals.counted("interval")), and a check-in counts from \(CheckIn.fewestCountedIntervals) intervals (the server keeps fewer as too short): measure \(spoken(Double(CheckIn.fewestCountedIntervals) * audio.interval)) or more (--duration)\(audio.interval > 1 ? ", or give a shorter --interval" : ""); `hearclear meter` measures without uploading")
            }
        }

        func run() async throws {
            let setup = try Setup()
            let client = try setup.client(needsToken: true)
            try await checkVenue(setup)

            let source = try audio.source.open()
            let calibration = audio.calibrationDB(setup.config)
            let outbox = Outbox(paths: setup.paths)
            let started = Date(timeIntervalSince1970: audio.startedAt(startedAt?.date, source: source).timeIntervalSince1970.rounded(.down))
            let recordingID = audio.recordingName(device: setup.config.deviceID ?? "", venueID: venueID, startedAt: started, source: source)
                .map { UUID(timeOrderedAt: started, naming: $0) }
            let header = Outbox.Header(
                id: recordingID, venueID: venueID, startedAt: started, intervalS: audio.interval, calibrationDB: calibration)
            // A run of the same recording killed before it sealed would hold its id.
            try outbox.recoverInterruptedRecordings()
            let recording = try outbox.begin(header)
            let planned = audio.source.plannedSeconds(duration.seconds, source: source) ?? duration.seconds
            var progress = Progress(total: planned, calibrationDB: calibration, interval: audio.interval)
            note("Checking in at \(venueID) for \(Terminal.clock(planned)); Ctrl-C ends early.")
            let outcome = try await Measurement(source: source, interval: audio.interval, weighting: .a, duration: duration.seconds).run { sample, seconds in
                try recording.append(sample)
                progress.show(sample, seconds: seconds)
            }
            progress.end()
            noteFileProblems(of: source)
            if outcome.stoppedBySignal { note("Stopped early: uploading what was measured.") }
            if outcome.overruns > 0 { note("\(outcome.overruns.counted("capture overrun")): the system dropped some audio.") }
            guard let checkIn = try recording.seal() else {
                note("Nothing was measured; no check-in.")
                throw ExitCode.failure
            }
            if let silence = Terminal.silenceNote(checkIn.samples) { note(silence) }

            // One try for this check-in, whatever waits: ending a check-in stays quick offline.
            // A sync running meanwhile may send it too; the server stores it once.
            let sync = Sync(outbox: outbox, client: client)
            let result = try await sync.run(.once, only: [checkIn.id], exclusive: false)
            if let receipt = result.uploaded.first {
                if json {
                    try printJSON(receipt)
                } else {
                    print(describe(receipt, of: result))
                }
                // The server is there: what waited from before may go up too, as far as it goes at once.
                _ = try? await sync.run(.once)
            } else if let rejection = result.rejected.first {
                // An id from the recording names other content only when the recording was measured otherwise before.
                let why = recordingID != nil && rejection.failure.isConflict
                    ? "this recording was checked in before with another --duration, --interval or --calibration, and counts as it was sent then (\(rejection.failure))"
                    : "\(rejection.failure)"
                note("The server refused the check-in: \(why). It is kept in \(outbox.rejectedFolder.path) (`hearclear outbox`).")
                throw ExitCode.failure
            } else {
                let reason = result.waiting.first?.reason ?? "not uploaded"
                print("Saved \(checkIn.samples.count) intervals; \(reason). The check-in waits in \(outbox.folder.path).")
            }
            let waiting = try outbox.pending().count
            if waiting > 0 { print("\(waiting.counted("check-in")) \(waiting == 1 ? "waits" : "wait"): `hearclear sync` uploads \(waiting == 1 ? "it" : "them").") }
        }

        /// Before minutes of measuring: is the venue known? Offline, measure anyway.
        func checkVenue(_ setup: Setup) async throws {
            do {
                _ = try await setup.client(timeout: 10).venue(id: venueID)
            } catch let failure as APIClient.Failure {
                if case .server(let status, let message, _) = failure {
                    if status == 404 {
                        throw CommandFailure(
                            "the server does not know venue \(venueID): add it first with `hearclear venue add \(venueID) --name NAME --lat LATITUDE --lng LONGITUDE`, or find its id with `hearclear venue find WORDS OF ITS NAME`")
                    }
                    if status == 308 { return note("\(message): the check-in counts there.") }
                }
                note("Cannot check venue \(venueID) now (\(failure)); measuring anyway, the venue is checked at upload.")
            }
        }
    }

    struct SyncCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync", abstract: "Upload every check-in waiting on disk.",
            discussion: "Waits as long as the server asks (Retry-After, up to 15 minutes in all), so a backlog goes up whole. Only one sync runs at a time; another one started meanwhile says so and exits 0.")

        @Flag(help: "Print the server's answers as JSON (what is refused or still waiting goes to standard error).") var json = false

        func run() async throws {
            let setup = try Setup()
            var lastNote = -Double.infinity
            let result = try await Sync(outbox: Outbox(paths: setup.paths), client: try setup.client(needsToken: true)).run(.sync) { seconds, done, total in
                let now = Date().timeIntervalSince1970
                guard now - lastNote >= 10 else { return }
                lastNote = now
                note("The server asked to slow down: waiting \(String(format: "%g", seconds)) s at a time (\(done) of \(total) uploaded so far).")
            }
            if result.anotherSyncRunning {
                note("Another hearclear sync is running: it uploads the waiting check-ins.")
                return
            }
            if json {
                try printJSON(result.uploaded)
                for rejection in result.rejected { note("\(rejection.id.wireString): refused, \(rejection.failure)") }
                for waiting in result.waiting { note("\(waiting.id.wireString): still waiting, \(waiting.reason)") }
                if !result.waiting.isEmpty { throw ExitCode.failure }
                return
            }
            for receipt in result.uploaded { print(describe(receipt, of: result)) }
            for rejection in result.rejected { print("\(rejection.id.wireString): refused, \(rejection.failure)") }
            for waiting in result.waiting { print("\(waiting.id.wireString): still waiting, \(waiting.reason)") }
            print("\(result.uploaded.count) uploaded, \(result.rejected.count) refused, \(result.waiting.count) waiting.")
            if !result.rejected.isEmpty { print("Refused check-ins are kept: `hearclear outbox` lists them, `hearclear outbox --retry ID` sends one again.") }
            if !result.waiting.isEmpty { throw ExitCode.failure }
        }
    }

    struct LoudnessCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "loudness", abstract: "A venue's loudness as a weekday × hour heatmap, or how hard it is to talk there.",
            discussion: "--effort, --music, --speech and --at ask the server's API v2 (docs/analysis.md says how effort is decided).")

        @Argument var venueID: String
        @Flag(help: "A grid of the vocal effort a conversation needs instead of levels.") var effort = false
        @Flag(help: "A grid of how often music is heard (% of the classified seconds) instead of levels.") var music = false
        @Flag(help: "The same for speech.") var speech = false
        @Flag var listener: Listener?
        @Option(
            help: ArgumentHelp("One local weekday and hour, e.g. friday-20 or \"fri 8pm\", or now (the hour it is at the venue).", valueName: "weekday-hour"),
            transform: AskedHour.typed)
        var at: AskedHour?
        @Flag(help: "Print the server's JSON document.") var json = false

        func validate() throws {
            try checkVenueIDToLookUp(venueID)
            if listener != nil && !effort && at == nil { throw ValidationError("--hearing-loss and --typical-hearing go with --effort or --at") }
            if [effort, music, speech].count(where: { $0 }) > 1 { throw ValidationError("use one of --effort, --music and --speech") }
        }

        func run() async throws {
            let setup = try Setup()
            let client = try setup.client()
            do {
                try await show(client, hearingLoss: Listener.hearingLoss(listener, saved: setup.config))
            } catch let failure as APIClient.Failure where !json {
                // A venue nobody has measured answers 404 for its loudness: to a person, that is an answer.
                guard case .server(404, _, _) = failure, let venue = try? await client.venue(id: venueID) else { throw failure }
                print("\(venue.name): nobody has measured here yet. `hearclear checkin \(venueID)` measures it.")
            }
        }

        func show(_ client: APIClient, hearingLoss: Bool) async throws {
            if effort || music || speech || at != nil {
                let answer = try await client.conversationLoudness(venueID: venueID)
                if json { return print(String(decoding: answer.json, as: UTF8.self)) }
                let venue = try? await client.venue(id: venueID)
                let name = venue?.name ?? venueID
                if effort { print(Terminal.standardOutput.effortGrid(answer.loudness, hearingLoss: hearingLoss, venueName: name)) }
                if music || speech { print(Terminal.standardOutput.shareGrid(answer.loudness, of: music ? .music : .speech, venueName: name)) }
                if let asked = at {
                    // Now is the hour it is at the venue, on its clock: the one its answers are kept by.
                    let at = asked.weekdayHour(in: venue.flatMap { TimeZone(identifier: $0.timezone) } ?? .current)
                    if effort || music || speech { print() }
                    let cell = answer.loudness.grid[at.weekday.index].hours[at.hour]
                    print(Terminal.standardOutput.cellSummary(cell, at: at, unit: answer.loudness.unit, venueName: name))
                }
                return
            }
            let answer = try await client.loudness(venueID: venueID)
            if json {
                print(String(decoding: answer.json, as: UTF8.self))
                return
            }
            let name = try? await client.venue(id: venueID).name
            // The hours nobody measured, estimated, from API v2: a server without it draws measured hours only.
            let estimates = try? await client.conversationLoudness(venueID: venueID).loudness
            print(Terminal.standardOutput.heatmap(answer.loudness, scale: try await client.scale(), venueName: name, estimates: estimates))
        }
    }

    struct Meter: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The level meter alone: nothing is saved or uploaded.")

        @OptionGroup var audio: AudioOptions
        @Option(help: "Frequency weighting: A or Z.") var weighting: Weighting = .a
        @Option(help: "Stop after this long: 90s, 5m, 2h (default: until Ctrl-C or the end of the file).") var duration: DurationArgument?
        @Flag(help: "Print the intervals as JSON at the end.") var json = false

        func run() async throws {
            let source = try audio.source.open()
            let calibration = audio.calibrationDB(try Setup().config)
            var samples: [Sample] = []
            var lastSeconds = audio.interval
            let interactive = isatty(STDOUT_FILENO) == 1 && !json
            var live = LiveMeter(
                terminal: Terminal.standardOutput, total: audio.source.plannedSeconds(duration?.seconds, source: source), calibrationDB: calibration,
                interval: audio.interval)
            try await Measurement(source: source, interval: audio.interval, weighting: weighting, duration: duration?.seconds).run { sample, seconds in
                let line = live.line(after: sample, seconds: seconds)
                lastSeconds = seconds
                if json {
                    samples.append(sample)
                } else if interactive {
                    FileHandle.standardOutput.write(Data(("\r\u{1B}[2K" + line).utf8))
                } else {
                    print(String(format: "%.1f %.2f %.2f", sample.t, sample.avg, sample.peak))
                }
            }
            if interactive { print("") }
            noteFileProblems(of: source)
            // Without one interval there is nothing to report, and success would say a file of no
            // samples was measured (checkin refuses it too); the summary exists once one was.
            guard let summary = live.summary else { throw CommandFailure(audio.file.map(Analyze.holdsNoAudio) ?? "nothing was measured") }
            if json {
                return try printJSON(
                    Analysis(
                        sampleRate: source.sampleRate, weighting: weighting, interval: audio.interval, calibrationDB: calibration,
                        samples: SoundClassifier.shipped.judgedBesideNeighbours(samples), lastSeconds: lastSeconds))
            }
            print(summary)
        }
    }

    struct Analyze: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Per-interval levels and loud events of a recording, offline.")

        @Argument(help: "The audio file: WAV, FLAC, Ogg Vorbis, Opus or MP3 (a pipe or FIFO: WAV; - for standard input).", transform: AudioSourceOptions.path)
        var path: String
        @Option(help: "Frequency weighting: A or Z.") var weighting: Weighting = .a
        @Option(help: "dB added to dBFS to estimate dB SPL, for loud events.", transform: AudioOptions.decibels) var calibration: Double?
        @Option(help: "Seconds per interval.") var interval: Double = 1
        @Flag(help: "Print JSON.") var json = false
        @Flag(help: "Print CSV: t,avg,peak,fast_max,c_avg,oct_500,oct_1000,oct_2000,oct_4000,sil (dBFS),speech,music (0 to 1).") var csv = false
        @Flag(help: "Print CSV of the features the speech and music classifier reads, per frame of each interval (what make train-classes learns from).")
        var features = false
        @Flag(inversion: .prefixedNo, help: "Speech and music per interval (--no-classes: the levels alone, in less time).") var classes = true
        @Option(help: "List sessions of speech, music or loud intervals (merged until 20 s pass without one).") var detect: Detection?
        @Option(help: "What counts as detected: a probability for speech and music (default 0.5), a calibrated peak in dB for loud (default 85).")
        var threshold: Double?
        @Option(help: ArgumentHelp(
            "When the recording began, e.g. 2026-11-20T21:15:00+11:00, or 2026-11-20 21:15 on this computer's clock (default: the file's modification time less its length); in --json as started_at.",
            valueName: "moment")) var startedAt: MomentArgument?

        func validate() throws {
            if [json, csv, features].count(where: { $0 }) > 1 { throw ValidationError("use one of --json, --csv and --features") }
            if detect != nil && (csv || features) { throw ValidationError("--detect prints sessions: as text, or with --json") }
            if !classes && (features || detect == .speech || detect == .music) { throw ValidationError("--no-classes leaves out what --features and --detect speech or music read") }
            if threshold != nil && detect == nil { throw ValidationError("--threshold goes with --detect") }
            if let threshold, detect != .loud, !(0...1).contains(threshold) {
                throw ValidationError("--threshold for speech and music is a probability from 0 to 1")
            }
            if let threshold, detect == .loud, !Level.plausibleDB.contains(threshold) {
                throw ValidationError("--threshold for loud is a peak \(Level.plausibleDBText) dB")
            }
            try AudioOptions.validate(interval: interval, calibration: calibration)
        }

        static func holdsNoAudio(_ path: String) -> String { "\(path) holds no audio: nothing to measure" }

        func run() async throws {
            let file = try AudioFile.open(path)
            defer { noteFileProblems(of: file) }
            var meter = LevelMeter(sampleRate: file.sampleRate, interval: interval, weighting: weighting, classifier: features || !classes ? nil : .shipped)
            var extractor = features ? SoundFeatures(sampleRate: file.sampleRate, interval: interval) : nil
            var samples: [Sample] = []
            var lastSeconds = interval
            var windows: [SoundFeatures.Window] = []
            while let block = try file.read(maxFrames: 65_536) {
                samples += meter.process(block)
                if let completed = extractor?.process(block) { windows += completed }
            }
            if let last = meter.finish() {
                samples.append(last.sample)
                lastSeconds = last.seconds
            }
            if let last = extractor?.finish() { windows.append(last) }
            samples = meter.classifier?.judgedBesideNeighbours(samples) ?? samples
            // Otherwise a file of no samples prints a header alone and succeeds, as if it had been measured.
            guard !samples.isEmpty else { throw CommandFailure(Self.holdsNoAudio(path)) }
            if features {
                guard extractor != nil else { throw CommandFailure("speech and music need \(SoundFeatures.minimumSampleRate) Hz or more; this file is \(file.sampleRate) Hz") }
                // Every frame, also those of an interval too short to judge: the next interval's context.
                print((["t", "frame"] + SoundFeatures.names).joined(separator: ","))
                let width = SoundFeatures.names.count
                for (index, window) in windows.enumerated() {
                    let own = Array(window.own)
                    for frame in 0..<window.frames {
                        let values = own[(frame * width)..<((frame + 1) * width)].map { String(format: "%.6g", $0) }
                        print(([String(format: "%g", Double(index) * interval), String(frame)] + values).joined(separator: ","))
                    }
                }
                return
            }
            let calibrationDB = calibration ?? (try? Setup().config.calibrationDB) ?? nil
            let began = AudioOptions.startedAt(startedAt?.date, file: path, source: file)
            let analysis = Analysis(
                sampleRate: file.sampleRate, weighting: weighting, interval: interval, calibrationDB: calibrationDB, samples: samples,
                lastSeconds: lastSeconds, startedAt: began)
            if let detect {
                if detect != .loud && !meter.classifies {
                    throw CommandFailure("speech and music need \(SoundFeatures.minimumSampleRate) Hz or more; this file is \(file.sampleRate) Hz")
                }
                let sessions = analysis.sessions(of: detect, threshold: threshold)
                if json { return try printJSON(DetectionReport(detect: detect, threshold: threshold ?? detect.defaultThreshold, startedAt: startedAt?.date, sessions: sessions)) }
                print("\(path): \(sessions.count.counted("\(detect.rawValue) session"))")
                for session in sessions {
                    let mean = detect == .loud ? String(format: "mean peak %.1f dB", session.meanValue) : String(format: "mean confidence %.2f", session.meanValue)
                    print("  \(session.span(startedAt: startedAt?.date, timeZone: startedAt?.timeZone ?? .current)), \(mean)")
                }
                return
            }
            if json { return try printJSON(analysis) }
            if csv {
                print(IntervalRecord.csvHeader)
                for sample in samples { print(IntervalRecord(sample).csvLine) }
                return
            }
            let intervals = samples.count.counted("interval")
            let partial = lastSeconds < interval ? String(format: " (the last %.3g s)", lastSeconds) : ""
            print("\(path): \(file.sampleRate) Hz, \(intervals) of \(interval) s\(partial), dBFS (avg, peak and fast: \(weighting.rawValue)-weighted; C; octave bands unweighted)")
            print(IntervalRecord.tableHeader)
            for sample in samples { print(IntervalRecord(sample).tableLine) }
            if !meter.measuresDetails {
                print("At \(file.sampleRate) Hz the 4 kHz octave band is above the Nyquist limit: no Fast maxima, C or bands (they need \(OctaveBand.minimumSampleRate) Hz or more).")
            }
            if let leq = analysis.leq {
                print(String(format: "Leq %.2f dBFS", leq) + LiveMeter.calibrated(leq, calibrationDB))
            }
            if let speech = analysis.share(of: .speech), let music = analysis.share(of: .music) {
                print(String(format: "Speech in %.0f %% of the intervals, music in %.0f %% (probability 0.5 or more).", speech * 100, music * 100))
            }
            for event in analysis.events {
                let judged = LiveMeter.calibrated(event.peak, analysis.loudCalibrationDB, isDefault: analysis.calibrationDB == nil)
                print(String(format: "Loud event at %gs: peak %.2f dBFS%@, %gs", event.t, event.peak, judged, event.durationS) + (event.sound.map { ", \($0.rawValue)" } ?? ""))
            }
        }
    }

    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the ALSA devices that can capture.")

        @Flag(help: "Print the devices as JSON.") var json = false

        func run() async throws {
            let devices = ALSACapture.captureDevices()
            if json { return try printJSON(devices.map { ["name": $0.name, "description": $0.description] }) }
            for device in devices { print("\(device.name)\t\(device.description)") }
            // ALSA lists its null device on every machine: alone, it means no microphone, and
            // measuring from it gives silence, which no check-in counts.
            if devices.allSatisfy({ $0.name == "null" }) {
                print("No microphone found\(devices.isEmpty ? "" : ": ALSA lists only its null device, which gives silence"). Is one plugged in, and may this user use it? (`arecord -l` lists the sound cards.)")
            }
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
    /// How long the last interval lasted: the interval, or less where the audio ended part-way through it.
    let lastSeconds: Double
    /// When the recording began, for a file; nil for the microphone (it is now).
    var startedAt: Date? = nil

    /// The calibration loud is judged with: an uncalibrated meter's events are those a check-in of it would send.
    var loudCalibrationDB: Double { calibrationDB ?? Level.defaultCalibrationDB }

    var events: [LoudEvent] {
        LoudEventDetector.events(in: samples, interval: interval, calibrationDB: loudCalibrationDB, recordingEnd: duration)
    }

    /// The seconds measured.
    var duration: Double { samples.isEmpty ? 0 : Double(samples.count - 1) * interval + lastSeconds }

    /// The run's equivalent level, dBFS: the energy mean of the intervals, each weighing for the
    /// time it lasted, as a sound level meter integrates (a last, partial interval for its part).
    var leq: Double? {
        guard let last = samples.last else { return nil }
        let whole = samples.dropLast().reduce(0) { $0 + Level.energy($1.avg) } * interval
        return Level.level(energy: (whole + Level.energy(last.avg) * lastSeconds) / duration)
    }

    enum CodingKeys: String, CodingKey {
        case sampleRate = "sample_rate", weighting, interval = "interval_s", duration = "duration_s", calibrationDB = "calibration_db", leq, samples, events
        case loudCalibrationDB = "events_calibration_db"
        case startedAt = "started_at", speechShare = "speech_share", musicShare = "music_share", classesModel = "classes_model"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sampleRate, forKey: .sampleRate)
        try container.encode(weighting, forKey: .weighting)
        try container.encode(interval, forKey: .interval)
        try container.encode(duration, forKey: .duration)
        try container.encode(calibrationDB, forKey: .calibrationDB)
        try container.encodeIfPresent(startedAt.map(Timestamp.format), forKey: .startedAt)
        try container.encode(leq, forKey: .leq)
        try container.encode(share(of: .speech), forKey: .speechShare)
        try container.encode(share(of: .music), forKey: .musicShare)
        // Which model gave them, as a check-in says it (API v2's classes_model).
        try container.encode(SoundClassifier.shippedVersion(classifying: samples), forKey: .classesModel)
        try container.encode(samples.map(IntervalRecord.init), forKey: .samples)
        try container.encode(events, forKey: .events)
        try container.encode(loudCalibrationDB, forKey: .loudCalibrationDB)
    }
}

/// A venue to look up typed by its name instead of its id: what finds the id.
func checkVenueIDToLookUp(_ venueID: String) throws {
    guard !VenueID.isValid(venueID) else { return }
    throw ValidationError("\"\(venueID)\" is not a venue id (\(VenueID.rule)): `hearclear venue find \(venueID)` finds a venue's id by words of its name")
}

func describe(_ venue: Venue) -> String {
    let level = venue.levelDB.map { String(format: "%.1f dB(A) %@", $0, venue.label ?? "") } ?? "no data yet"
    return "\(venue.id)  \(venue.name)  (\(venue.kind.map { "\($0.rawValue), " } ?? "")\(venue.timezone))  \(level), \(venue.checkins.counted("check-in"))"
}

/// A receipt of `sync`, saying when the server had the check-in already (a retry whose first
/// answer was lost, or a recording checked in again).
func describe(_ receipt: CheckInReceipt, of sync: Sync.Result) -> String {
    describe(receipt) + (sync.storedBefore.contains(receipt.id) ? " (checked in before: it counts once)" : "")
}

func describe(_ receipt: CheckInReceipt) -> String {
    let level = receipt.levelDB.map { String(format: "%.1f dB(A)", $0) + (receipt.label.map { " \($0)" } ?? "") } ?? "no level"
    return "\(receipt.venueID): \(level), \(receipt.samples) samples, \(receipt.droppedSamples) dropped, \(receipt.status.rawValue)"
        + (receipt.meaning.map { ": \($0)" } ?? "")
}
