import Foundation
import HearClearCore
import LevelMeter
import TestSignals
import Testing

@testable import HearClearClient

func temporaryPaths() throws -> ClientPaths {
    let folder = try temporaryFolder("client")
    return ClientPaths(configFile: folder.appendingPathComponent("config/hearclear/config.json"), dataFolder: folder.appendingPathComponent("data/hearclear"))
}

@Suite struct OutboxTests {
    let start = Timestamp.parse("2026-11-20T10:15:00Z")!

    @Test func aRecordingIsSealedIntoTheOutboxWithItsEvents() throws {
        let outbox = Outbox(paths: try temporaryPaths())
        let recording = try outbox.begin(Outbox.Header(venueID: "v1", startedAt: start, intervalS: 1, calibrationDB: 100))
        for second in 0..<20 {
            try recording.append(Sample(t: Double(second), avg: -40, peak: second == 3 ? -5 : -30))
        }
        let checkIn = try #require(try recording.seal())
        #expect(checkIn.samples.count == 20 && checkIn.events == [LoudEvent(t: 3, peak: -5, durationS: 1)])
        // Time-ordered at its start, for the stores' indexes of ids.
        #expect(checkIn.id.timeOrderedMilliseconds == UInt64(start.timeIntervalSince1970 * 1000))
        let pending = try outbox.pending()
        #expect(try pending.map { try $0.checkIn() } == [checkIn])
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox.folder.path) == ["\(checkIn.id.wireString).json"])
        try outbox.remove(pending[0].file)
        #expect(try outbox.pending().isEmpty)
    }

    /// Speech and music go up with the levels (API v2's classes, in whole percent), the loud event
    /// tagged with what its seconds held, also when a killed client's journal is sealed later. The
    /// journal keeps each second as the meter handed it on; sealing judges their music beside its
    /// neighbours', the shipped model's last rule.
    @Test func aRecordingKeepsItsClassesAndTagsItsEvents() throws {
        let outbox = Outbox(paths: try temporaryPaths())
        let recording = try outbox.begin(Outbox.Header(venueID: "v1", startedAt: start, intervalS: 1, calibrationDB: 100))
        for second in 0..<20 {
            try recording.append(Sample(t: Double(second), avg: -40, peak: second == 3 ? -5 : -30, classes: SoundClasses(speech: 0.123, music: 0.876)))
        }
        let checkIn = try #require(try recording.seal())
        #expect(checkIn.events == [LoudEvent(t: 3, peak: -5, durationS: 1, sound: .music)])
        let body = try JSONDecoder.outbox.decode(CheckInV2.self, from: Data(contentsOf: outbox.folder.appendingPathComponent("\(checkIn.id.wireString).json")))
        #expect(body.classes == CheckInV2.Classes(speech: Array(repeating: 12, count: 20), music: Array(repeating: 88, count: 20)))
        #expect(body.events.first?.sound == .music)
        // Saying which model gave them, so that a venue's answer can tell.
        #expect(body.classesModel == SoundClassifier.shipped.version && checkIn.classesModel == SoundClassifier.shipped.version)

        // A killed client's journal, as `Recording.append` writes it.
        let killed = Outbox.Header(venueID: "v1", startedAt: start, intervalS: 1, calibrationDB: 100)
        let classes = [SoundClasses(speech: 0.9, music: 0.1), SoundClasses(speech: 0.2, music: 0.7), SoundClasses(speech: 0.9, music: 0.1)]
        var journal = String(decoding: try JSONEncoder.outbox.encode(killed), as: UTF8.self) + "\n"
        for (second, heard) in classes.enumerated() {
            journal += String(decoding: try JSONEncoder.outbox.encode(IntervalRecord(Sample(t: Double(second), avg: -40, peak: -30, classes: heard))), as: UTF8.self) + "\n"
        }
        try Data(journal.utf8).write(to: outbox.folder.appendingPathComponent("\(killed.id.wireString).recording"))
        try outbox.recoverInterruptedRecordings()
        let recovered = try #require(try outbox.pending().first { $0.id == killed.id })
        #expect(try recovered.checkIn().samples.map { $0.classes?.percent.music } == [40, 30, 40])
        #expect(try recovered.checkIn().samples.map { $0.classes?.percent.speech } == [90, 20, 90])
        #expect(try recovered.checkIn().classesModel == SoundClassifier.shipped.version)
    }

    @Test func aRecordingLeftByAKilledClientIsSealedWithItsCompleteLines() throws {
        let outbox = Outbox(paths: try temporaryPaths())
        let header = Outbox.Header(venueID: "v1", startedAt: start, intervalS: 1, calibrationDB: nil)
        try FileManager.default.createDirectory(at: outbox.folder, withIntermediateDirectories: true)
        var journal = String(decoding: try JSONEncoder.outbox.encode(header), as: UTF8.self) + "\n"
        for second in 0..<3 {
            journal += String(decoding: try JSONEncoder.outbox.encode(Sample(t: Double(second), avg: -40, peak: -30)), as: UTF8.self) + "\n"
        }
        journal += #"{"avg":-40,"pe"#  // the kill came in the middle of a line
        try Data(journal.utf8).write(to: outbox.folder.appendingPathComponent("\(header.id.wireString).recording"))

        try outbox.recoverInterruptedRecordings()
        let pending = try outbox.pending()
        #expect(pending.count == 1)
        #expect(try pending[0].id == header.id && pending[0].checkIn().samples.count == 3)
        #expect(pending[0].startedAt == start && pending[0].venueID == "v1" && pending[0].isVersion2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox.folder.path).count == 1)
    }

    static func detailed(_ second: Int) -> Sample {
        Sample(t: Double(second), avg: -40.04, peak: -30, details: LevelDetails(fastMax: -38.96, cAvg: -36, octaves: [-44, -45.55, -47, -50]))
    }

    /// The details go through the journal and the sealed file (API v2's columns) at upload
    /// precision, and a journal left by a kill keeps them.
    @Test func theDetailsGoThroughTheOutbox() throws {
        let outbox = Outbox(paths: try temporaryPaths())
        let recording = try outbox.begin(Outbox.Header(venueID: "v1", startedAt: start, intervalS: 1, calibrationDB: nil))
        for second in 0..<5 { try recording.append(Self.detailed(second)) }
        let sealed = try #require(try recording.seal())
        #expect(sealed.samples == (0..<5).map { Self.detailed($0).roundedForUpload })
        #expect(sealed.samples[0].details?.octaves[1] == -45.6)
        let file = try outbox.pending()[0].file
        #expect(try JSONDecoder.outbox.decode(CheckInV2.self, from: Data(contentsOf: file)).levels.oct1000 == Array(repeating: -456, count: 5))
        #expect(try outbox.pending().map { try $0.checkIn() } == [sealed])

        let header = Outbox.Header(venueID: "v1", startedAt: start, intervalS: 1, calibrationDB: nil)
        let journal = try [JSONEncoder.outbox.encode(header)] + (0..<3).map { try JSONEncoder.outbox.encode(IntervalRecord(Self.detailed($0))) }
        try Data(journal.map { String(decoding: $0, as: UTF8.self) + "\n" }.joined().utf8).write(to: outbox.folder.appendingPathComponent("\(header.id.wireString).recording"))
        try outbox.recoverInterruptedRecordings()
        let recovered = try #require(try outbox.pending().first { $0.id == header.id })
        #expect(try recovered.checkIn().samples.map(\.details) == (0..<3).map { Self.detailed($0).details?.rounded })
    }

    /// A check-in encoded for upload is the bytes its sealed file holds, key for key, whatever
    /// order the process's hashing would give an object's keys.
    @Test func anUploadBodyIsTheSealedFilesBytes() throws {
        let outbox = Outbox(paths: try temporaryPaths())
        let recording = try outbox.begin(Outbox.Header(venueID: "v1", startedAt: start, intervalS: 1, calibrationDB: 100))
        for second in 0..<20 {
            try recording.append(
                Sample(
                    t: Double(second), avg: -40 + Double(second), peak: -30,
                    details: LevelDetails(fastMax: -35, cAvg: -38, octaves: [-45, -46, -47, -48]), classes: SoundClasses(speech: 0.5, music: 0.25)))
        }
        let checkIn = try #require(try recording.seal())
        let sealed = try Data(contentsOf: try outbox.pending()[0].file)
        #expect(try APIClient.uploadBody(CheckInV2(checkIn)) == APIClient.gzip(sealed))
    }

    /// Clients before API v2 sealed check-ins as v1 documents: they still go up.
    @Test func aCheckInSealedByAnOlderClientStillReads() throws {
        let outbox = Outbox(paths: try temporaryPaths())
        let old = CheckIn(id: UUID(), venueID: "v1", startedAt: start, calibrationDB: 100, samples: [Sample(t: 0, avg: -40, peak: -30)])
        try FileManager.default.createDirectory(at: outbox.folder, withIntermediateDirectories: true)
        try JSONEncoder.outbox.encode(old).write(to: outbox.folder.appendingPathComponent("\(old.id.wireString).json"))
        #expect(try outbox.pending().map { try $0.checkIn() } == [old])
    }

    /// What the outbox says of a waiting check-in is read without decoding its levels, and matches
    /// what decoding gives; a file that is no check-in of this client's is set aside.
    @Test func aWaitingCheckInIsReadForItsHeaderOnly() throws {
        let outbox = Outbox(paths: try temporaryPaths())
        let recording = try outbox.begin(Outbox.Header(venueID: "the-venue_1", startedAt: start, intervalS: 1, calibrationDB: 100))
        for second in 0..<30 {
            try recording.append(Sample(t: Double(second), avg: -40, peak: -30, details: Self.detailed(second).details, classes: SoundClasses(speech: 0.5, music: 0.5)))
        }
        let sealed = try #require(try recording.seal())
        let pending = try #require(try outbox.pending().first)
        #expect(pending.id == sealed.id && pending.venueID == "the-venue_1" && pending.startedAt == start && pending.isVersion2)
        #expect(try pending.checkIn() == sealed)
        try Data(#"{"id": "not one of ours"}"#.utf8).write(to: outbox.folder.appendingPathComponent("stray.json"))
        #expect(try outbox.pending().map(\.id) == [sealed.id])
        #expect(try outbox.rejected().map(\.id) == ["stray"])
    }

    @Test func aServerWithoutVersion2IsRememberedForADay() throws {
        let versions = ServerVersions(paths: try temporaryPaths())
        let server = URL(string: "http://127.0.0.1:8080")!, other = URL(string: "https://hearclear.example")!
        #expect(!versions.lacksVersion2(server))
        versions.rememberLacksVersion2(server, now: start)
        #expect(versions.lacksVersion2(server, now: start.addingTimeInterval(3600)) && !versions.lacksVersion2(other, now: start))
        #expect(!versions.lacksVersion2(server, now: start.addingTimeInterval(86_401)))
    }

    @Test func aSealCutShortByAKillLeavesNoTemporaryFileBehind() throws {
        let outbox = Outbox(paths: try temporaryPaths())
        let header = Outbox.Header(venueID: "v1", startedAt: start, intervalS: 1, calibrationDB: nil)
        try FileManager.default.createDirectory(at: outbox.folder, withIntermediateDirectories: true)
        let journal = String(decoding: try JSONEncoder.outbox.encode(header), as: UTF8.self) + "\n"
            + String(decoding: try JSONEncoder.outbox.encode(Sample(t: 0, avg: -40, peak: -30)), as: UTF8.self) + "\n"
        try Data(journal.utf8).write(to: outbox.folder.appendingPathComponent("\(header.id.wireString).recording"))
        // The kill came between writing the sealed check-in and renaming it into place.
        try Data("{\"half".utf8).write(to: outbox.folder.appendingPathComponent(".\(header.id.wireString).json.\(UUID().uuidString).tmp"))

        try outbox.recoverInterruptedRecordings()
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox.folder.path) == ["\(header.id.wireString).json"])
    }

    @Test func aRecordingStillBeingWrittenIsLeftAlone() throws {
        let outbox = Outbox(paths: try temporaryPaths())
        let recording = try outbox.begin(Outbox.Header(venueID: "v1", startedAt: start, intervalS: 1, calibrationDB: nil))
        try recording.append(Sample(t: 0, avg: -40, peak: -30))
        try outbox.recoverInterruptedRecordings()
        #expect(try outbox.pending().isEmpty)
        #expect(FileManager.default.fileExists(atPath: recording.file.path))
    }

    @Test func aRefusedCheckInMovesAsideWithItsReason() throws {
        let outbox = Outbox(paths: try temporaryPaths())
        let recording = try outbox.begin(Outbox.Header(venueID: "v1", startedAt: start, intervalS: 1, calibrationDB: nil))
        try recording.append(Sample(t: 0, avg: -40, peak: -30))
        let checkIn = try #require(try recording.seal())
        try outbox.moveAside(try outbox.pending()[0].file, reason: "server answered 422: nope")
        #expect(try outbox.pending().isEmpty)
        let reason = try String(contentsOf: outbox.rejectedFolder.appendingPathComponent("\(checkIn.id.wireString).reason.txt"), encoding: .utf8)
        #expect(reason == "server answered 422: nope\n")
        #expect(FileManager.default.fileExists(atPath: outbox.rejectedFolder.appendingPathComponent("\(checkIn.id.wireString).json").path))
    }

    /// Was: a refused check-in could only be sent again (`--retry`); one that never will be stayed
    /// listed for good, unless its files were found and deleted by hand.
    @Test func aRefusedCheckInCanBeDiscarded() throws {
        let outbox = Outbox(paths: try temporaryPaths())
        let recording = try outbox.begin(Outbox.Header(venueID: "v1", startedAt: start, intervalS: 1, calibrationDB: nil))
        try recording.append(Sample(t: 0, avg: -40, peak: -30))
        let checkIn = try #require(try recording.seal())
        try outbox.moveAside(try outbox.pending()[0].file, reason: "server answered 409: taken")
        #expect(try outbox.discard(checkIn.id.wireString.uppercased()))
        #expect(try outbox.rejected().isEmpty && outbox.pending().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox.rejectedFolder.path).isEmpty)
        #expect(try !outbox.discard(checkIn.id.wireString))
    }

    /// Was: sealed and refused check-ins 0644 in folders of 0755 — where and when this person was,
    /// readable by every user of the machine, while the config beside them was 0600.
    @Test func whereSomeoneWasIsReadableByThemOnly() throws {
        let outbox = Outbox(paths: try temporaryPaths())
        for venue in ["v1", "v2"] {
            let recording = try outbox.begin(Outbox.Header(venueID: venue, startedAt: start, intervalS: 1, calibrationDB: nil))
            try recording.append(Sample(t: 0, avg: -40, peak: -30))
            _ = try recording.seal()
        }
        try outbox.moveAside(try outbox.pending()[0].file, reason: "server answered 422: nope")
        func mode(_ url: URL) throws -> Int { try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int ?? -1 }
        for folder in [outbox.folder, outbox.rejectedFolder] {
            #expect(try mode(folder) == 0o700, "\(folder.path)")
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                #expect(try mode(folder.appendingPathComponent(name)) == 0o600, "\(name)")
            }
        }
    }

    @Test func anUnreadableOutboxFileIsMovedAsideNotUploaded() throws {
        let outbox = Outbox(paths: try temporaryPaths())
        try FileManager.default.createDirectory(at: outbox.folder, withIntermediateDirectories: true)
        try Data("garbage".utf8).write(to: outbox.folder.appendingPathComponent("broken.json"))
        #expect(try outbox.pending().isEmpty)
        #expect(FileManager.default.fileExists(atPath: outbox.rejectedFolder.appendingPathComponent("broken.json").path))
    }
}

@Suite struct ClientConfigTests {
    @Test func theConfigIsPrivateAndRoundTrips() throws {
        let paths = try temporaryPaths()
        let config = ClientConfig(server: "http://127.0.0.1:8080", deviceID: "d", token: "secret", calibrationDB: 112)
        try config.save(to: paths.configFile)
        #expect(try ClientConfig.load(from: paths.configFile) == config)
        let permissions = try FileManager.default.attributesOfItem(atPath: paths.configFile.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }

    /// A device's token is the bearer credential of the server that issued it: sent to another
    /// host (`HEARCLEAR_SERVER` naming another server), whoever runs that one could upload and
    /// delete as this device on the first. Hosts as cookies scope them (RFC 6265): not by port.
    @Test func theTokenGoesOnlyToTheHostThatIssuedIt() throws {
        let config = ClientConfig(server: "https://Hear.Example:8443/", deviceID: "d", token: "secret")
        for same in ["https://hear.example:8443", "https://hear.example", "http://HEAR.example:8080/"] {
            #expect(config.token(for: URL(string: same)!) == "secret", "\(same)")
        }
        for other in ["https://hear.example.evil.test", "https://evil.test", "http://127.0.0.1:8443"] {
            #expect(config.token(for: URL(string: other)!) == nil, "\(other)")
        }
        #expect(ClientConfig(server: nil, token: "secret").token(for: URL(string: "https://hear.example")!) == nil)
    }

    @Test func theEnvironmentPicksTheServerAndThePaths() throws {
        let config = ClientConfig(server: "http://a.example:8080")
        #expect(try config.serverURL(environment: ["HEARCLEAR_SERVER": "http://b.example"]).host == "b.example")
        #expect(try config.serverURL(environment: [:]).host == "a.example")
        #expect(throws: ClientConfig.Invalid.self) { try ClientConfig().serverURL(environment: [:]) }
        #expect(throws: ClientConfig.Invalid.self) { try ClientConfig(server: "ftp://x").serverURL(environment: [:]) }
        // Was: "127.0.0.1:8080 is not an http(s) URL", and nothing of the scheme it lacked.
        #expect(throws: ClientConfig.Invalid(description: "127.0.0.1:8080 is not an http(s) URL: did you mean http://127.0.0.1:8080?")) {
            try ClientConfig(server: "127.0.0.1:8080").serverURL(environment: [:])
        }
        #expect(throws: ClientConfig.Invalid(description: "hearclear.example.org is not an http(s) URL: did you mean https://hearclear.example.org?")) {
            try ClientConfig(server: "hearclear.example.org").serverURL(environment: [:])
        }
        let paths = ClientPaths(environment: ["HOME": "/home/ann", "XDG_DATA_HOME": "/data", "HEARCLEAR_CONFIG": "/etc/hc.json"])
        #expect(paths.configFile.path == "/etc/hc.json" && paths.outbox.path == "/data/hearclear/outbox")
        #expect(ClientPaths(environment: ["HOME": "/home/ann"]).configFile.path == "/home/ann/.config/hearclear/config.json")
        // Was: an empty HEARCLEAR_CONFIG named the working folder ("/work is not a valid hearclear
        // config: Error Domain=NSCocoaErrorDomain…"), an empty HEARCLEAR_SERVER " is not an http(s)
        // URL"; empty is unset, as for XDG_CONFIG_HOME.
        #expect(ClientPaths(environment: ["HOME": "/home/ann", "HEARCLEAR_CONFIG": ""]).configFile.path == "/home/ann/.config/hearclear/config.json")
        #expect(try config.serverURL(environment: ["HEARCLEAR_SERVER": ""]).host == "a.example")
    }

    /// Was: Foundation's errors as they came ("Error Domain=NSCocoaErrorDomain Code=256 …",
    /// "DecodingError.dataCorrupted: Data was corrupted. Debug description: …").
    @Test func aCorruptConfigIsAClearError() throws {
        let paths = try temporaryPaths()
        let file = paths.configFile
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let mend = "Mend it, or move it away and register again (`hearclear register --server URL`, as a new device)"
        for (text, problem) in [
            ("{", "it is not JSON"), ("", "it is not JSON"),
            (#"{"server": 3}"#, "“server” holds a value of another kind than hearclear writes there"),
        ] {
            try Data(text.utf8).write(to: file)
            #expect(throws: ClientConfig.Invalid(description: "\(file.path) is not a hearclear config: \(problem). \(mend).")) { try ClientConfig.load(from: file) }
        }
        let folder = file.deletingLastPathComponent()
        #expect(throws: ClientConfig.Invalid(description: "\(folder.path) is a folder: HEARCLEAR_CONFIG names the config file itself, like \(folder.path)/config.json")) {
            try ClientConfig.load(from: folder)
        }
    }
}

@Suite struct TerminalTests {
    @Test(arguments: [("90s", 90.0), ("5m", 300), ("2h", 7200), ("1h30m", 5400), ("45", 45), ("0.5s", 0.5)])
    func durations(text: String, seconds: Double) throws {
        #expect(try DurationText.seconds(text) == seconds)
    }

    /// Was: `checkin --help` said "(default: 05:00)", a form the option does not take and which
    /// reads as five hours as well as five minutes.
    @Test(arguments: [(300.0, "5m"), (90, "90s"), (7200, "2h"), (5400, "1h30m"), (3661, "1h1m1s"), (0.5, "0.5s")])
    func aDurationIsWrittenAsItIsTyped(seconds: Double, text: String) throws {
        #expect(DurationText.text(seconds) == text)
        #expect(try DurationText.seconds(text) == seconds)
    }

    @Test(arguments: ["", "5x", "m", "-3", "5m3", "0"])
    func badDurations(text: String) {
        #expect(throws: DurationText.Invalid.self) { try DurationText.seconds(text) }
    }

    @Test func theHeatmapHasAWeekdayRowPerDayAndALegend() {
        var loudness = Loudness(
            venueID: "v1", unit: "dBA", overall: LoudnessCell(levelDB: 72, label: "moderate", checkins: 3, samples: 900),
            byWeekday: [], byHour: [],
            grid: Weekday.allCases.map { day in
                Loudness.WeekdayRow(weekday: day, hours: (0..<24).map { LoudnessCell(weekday: day, hour: $0, levelDB: nil, label: nil, checkins: 0, samples: 0) })
            })
        loudness.grid[4].hours[21] = LoudnessCell(weekday: .friday, hour: 21, levelDB: 83, label: "very loud", checkins: 2, samples: 600)
        let plain = Terminal(colors: false).heatmap(loudness, scale: .standard, venueName: "The Bar")
        let lines = plain.split(separator: "\n")
        #expect(lines.count == 1 + 1 + 7 + 1)
        #expect(lines[0] == "The Bar: 72.0 dBA (moderate), 3 check-ins")
        loudness.overall.checkins = 1
        #expect(Terminal(colors: false).heatmap(loudness, scale: .standard, venueName: "The Bar").hasPrefix("The Bar: 72.0 dBA (moderate), 1 check-in\n"))
        #expect(lines[6].hasPrefix("Fri") && lines[6].contains("  V"))
        #expect(lines[2].hasPrefix("Mon") && !lines[2].contains("V"))
        #expect(lines[9].contains("V very loud above") && lines[9].contains("Q quiet ≤70"))
        let colored = Terminal(colors: true).heatmap(loudness, scale: .standard)
        #expect(colored.contains("\u{1B}[48;5;196m\u{1B}[30m 83"))

        // With API v2's answer, Friday 20:00, nobody measured, is its estimate: a tilde, unpainted.
        var estimates = ConversationLoudness(
            venueID: "v1", unit: "dBA", overall: ConversationCell(cell: loudness.overall), byWeekday: [], byHour: [],
            grid: loudness.grid.map { .init(weekday: $0.weekday, hours: $0.hours.map { ConversationCell(cell: $0) }) })
        estimates.grid[4].hours[20] = ConversationCell(
            cell: LoudnessCell(weekday: .friday, hour: 20, levelDB: 77.4, label: "loud", checkins: 0, samples: 0), estimated: true, interval80: [73, 81.8])
        let filled = Terminal(colors: false).heatmap(loudness, scale: .standard, estimates: estimates).split(separator: "\n")
        let friday = Array(filled[6]), from = 6 + 3 * 20
        #expect(String(friday[from..<(from + 6)]) == " ~L  V", "\(filled[6])")
        #expect(filled[9].contains("~ estimated (nobody measured that hour)"))
        #expect(Terminal(colors: true).heatmap(loudness, scale: .standard, estimates: estimates).contains("~77\u{1B}[48;5;196m"))
    }

    @Test func theMeterLineShowsTimeBarPeakAndEvents() {
        let line = Terminal(colors: false).meterLine(elapsed: 75, total: 300, average: -45, peak: -20, calibrationDB: 110, events: 2)
        #expect(line.hasPrefix("01:15 / 05:00  ["))
        #expect(line.contains("avg  65.0 dB ") && line.contains("peak  90.0 dB ") && line.hasSuffix("events 2"))
    }

    /// Was: uncalibrated levels labelled dB, and a bar that stayed empty.
    @Test func uncalibratedTheMeterSaysDBFSAndItsBarMoves() {
        let line = Terminal(colors: false).meterLine(elapsed: 1, total: nil, average: -30, peak: -12, calibrationDB: nil, events: 0)
        #expect(line.contains("avg -30.0 dBFS") && line.contains("peak -12.0 dBFS"))
        #expect(line.filter { $0 == "█" }.count == 20)
    }

    /// Was: the live meter's event count stayed 0.
    @Test func theLiveMeterCountsLoudEvents() {
        var meter = LiveMeter(terminal: Terminal(colors: false), total: nil, calibrationDB: 110, interval: 1)
        // Peaks at 90 dB from second 3 to 5, and again from second 40: two events 20 s apart or more.
        var last = ""
        for second in 0..<45 {
            let loud = (3...5).contains(second) || second >= 40
            last = meter.line(after: Sample(t: Double(second), avg: -50, peak: loud ? -20 : -40), seconds: 1)
        }
        #expect(meter.events == 2)
        #expect(last.hasSuffix("events 2"))
        #expect(meter.summary == "Leq -50.00 dBFS over 00:45 (60.0 dB with the calibration of 110 dB), 2 loud events")
    }

    /// Was: a last, partial interval (the audio ended, or Ctrl-C, part-way through it) counted in
    /// the Leq as a whole one: ten seconds at −40 dBFS and half a second at −10 read −20.4, not −23.1.
    @Test func theLiveMetersLeqWeighsAPartialLastIntervalByItsLength() {
        var meter = LiveMeter(terminal: Terminal(colors: false), total: nil, calibrationDB: nil, interval: 1)
        for second in 0..<10 { _ = meter.line(after: Sample(t: Double(second), avg: -40, peak: -37), seconds: 1) }
        _ = meter.line(after: Sample(t: 10, avg: -10, peak: -7), seconds: 0.5)
        let expected = 10 * log10((10 * pow(10, -4.0) + 0.5 * pow(10, -1.0)) / 10.5)
        #expect(meter.summary == String(format: "Leq %.2f dBFS over 00:10, 1 loud event", expected))
    }
}
