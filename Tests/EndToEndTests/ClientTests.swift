import Foundation
import FoundationNetworking
import LoopbackHTTP
import HearClearCore
import TestCluster
import TestSignals
import Testing

/// `hearclear` against a real `hearclear-server` on loopback, with its own HOME.
/// A −37 dBFS sine reads −40.01 dBFS RMS: 70.0 dB(A) with the default calibration of 110.
@Suite struct ClientTests {
    let folder: URL
    let environment: [String: String]

    init() throws {
        folder = try temporaryFolder()
        environment = clientEnvironment(in: folder)
    }

    func hearclear(_ arguments: String...) async throws -> Executable.Result {
        try await hearclear(arguments)
    }

    func hearclear(_ arguments: [String]) async throws -> Executable.Result {
        try await Executable.run("hearclear", arguments, environment: environment)
    }

    /// 30 seconds of a 1 kHz tone.
    func recording() throws -> String {
        try temporaryFile("venue.wav", WAVWriter.data(Signal.sine(frequency: 1000, dBFS: -37, seconds: 30, sampleRate: 48_000), sampleRate: 48_000, format: .int16))
    }

    var outbox: URL { folder.appendingPathComponent("data/hearclear/outbox") }

    @Test(arguments: StoreKind.allCases) func registerAddAVenueCheckInAndReadItsLoudness(store: StoreKind) async throws {
        let server = try await ServerProcess(database: try await ServerDatabase(store, named: "e2e", in: folder))
        let registered = try await hearclear("register", "--server", server.url.absoluteString, "--model", "Test Mic")
        #expect(registered.status == 0, "\(registered.errors)")
        let config = try String(contentsOf: folder.appendingPathComponent("config/hearclear/config.json"), encoding: .utf8)
        #expect(config.contains("\"token\""))
        #expect(try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("config/hearclear/config.json").path)[.posixPermissions] as? Int == 0o600)

        let added = try await hearclear("venue", "add", "e2e-bar", "--name", "E2E Bar", "--lat", "-33.8688", "--lng", "151.2093", "--timezone", "Australia/Sydney")
        #expect(added.status == 0, "\(added.errors)")
        #expect(added.output.contains("E2E Bar"))
        // Before anyone measured: an answer, not "Error: server answered 404: …".
        for arguments in [["loudness", "e2e-bar"], ["loudness", "e2e-bar", "--effort"], ["loudness", "e2e-bar", "--at", "fri-20"]] {
            let unmeasured = try await Executable.run("hearclear", arguments, environment: environment)
            #expect(unmeasured.status == 0, "\(arguments): \(unmeasured.errors)")
            #expect(unmeasured.output == "E2E Bar: nobody has measured here yet. `hearclear checkin e2e-bar` measures it.\n", "\(arguments): \(unmeasured.output)")
        }
        // A program asking for the document still gets the server's 404.
        #expect(try await hearclear("loudness", "e2e-bar", "--json").status != 0)
        // Refused before measuring, not after: the server keeps no check-in longer than 12 hours.
        let overnight = try await hearclear("checkin", "e2e-bar", "--duration", "13h")
        #expect(overnight.status != 0 && overnight.errors.contains("--duration: a check-in is at most 12 hours"), "\(overnight.errors)")
        #expect(!overnight.errors.contains("Checking in"))
        // Refused before measuring: five minutes at one interval a minute make five intervals, and
        // the server counts none of them (was: measured for five minutes, then "too_short").
        for (options, needed) in [(["--interval", "60"], "15 minutes"), (["--duration", "10s"], "15 s")] {
            let short = try await hearclear(["checkin", "e2e-bar"] + options)
            #expect(short.status != 0 && short.errors.contains("a check-in counts from 15 intervals") && short.errors.contains("measure \(needed) or more"), "\(short.errors)")
            #expect(!short.errors.contains("Checking in"))
        }
        // Refused before measuring: the server takes whole seconds.
        let tenths = try await hearclear("checkin", "e2e-bar", "--file", try recording(), "--interval", "0.5")
        #expect(tenths.status != 0 && tenths.errors.contains("--interval must be a whole number of seconds for a check-in"), "\(tenths.errors)")
        #expect(!tenths.errors.contains("Checking in"))

        let checkIn = try await hearclear("checkin", "e2e-bar", "--file", try recording(), "--duration", "1m")
        #expect(checkIn.status == 0, "\(checkIn.errors)")
        // A recording shorter than --duration is measured to its end, and said so up front.
        #expect(checkIn.errors.contains("Checking in at e2e-bar for 00:30;"), "\(checkIn.errors)")
        #expect(checkIn.output.contains("e2e-bar: 70.0 dB(A) quiet, 30 samples, 0 dropped, accepted"), "\(checkIn.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox.path).isEmpty)

        let json = try await hearclear("loudness", "e2e-bar", "--json")
        #expect(json.status == 0)
        let loudness = try JSONDecoder().decode(Loudness.self, from: Data(json.output.utf8))
        #expect(loudness.overall.checkins == 1 && loudness.overall.samples == 30 && loudness.overall.levelDB == 70)

        let heatmap = try await hearclear("loudness", "e2e-bar")
        #expect(heatmap.output.hasPrefix("E2E Bar: 70.0 dBA (quiet), 1 check-in"))
        #expect(heatmap.output.contains("Legend: Q quiet"))

        let near = try await hearclear("venue", "near", "-33.8690,151.2093", "--radius", "500")
        #expect(near.output.contains("22 m  e2e-bar  E2E Bar"), "\(near.output)")
        let shown = try await hearclear("venue", "show", "e2e-bar", "--json")
        #expect(try JSONDecoder().decode(Venue.self, from: Data(shown.output.utf8)).checkins == 1)
        // Was: the venue's line alone, where a person wants the page to pass on, which opens.
        let page = try await hearclear("venue", "show", "e2e-bar")
        let address = "\(server.url.absoluteString)/venues/e2e-bar"
        #expect(page.output.hasSuffix("\n  at -33.86880, 151.20930 · its page: \(address)\n"), "\(page.output)")
        let (_, response) = try await URLSession.shared.data(from: try #require(URL(string: address)))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
    }

    /// Music from a Debian package (Ogg, 44.1 kHz stereo), checked in: API v2 carries every
    /// series, and the server keeps each second's details and their sums per hour.
    @Test(arguments: StoreKind.allCases) func aRealRecordingArrivesThroughVersion2WithEverySeries(store: StoreKind) async throws {
        let database = try await ServerDatabase(store, named: "music", in: folder)
        let server = try await ServerProcess(database: database)
        #expect(try await hearclear("register", "--server", server.url.absoluteString).status == 0)
        #expect(try await hearclear("venue", "add", "hall", "--name", "Music Hall", "--lat", "0", "--lng", "0", "--timezone", "UTC").status == 0)
        let music = "/usr/share/planetblupi/music/music000.ogg"
        let started = Timestamp.format(Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 3600).rounded()))
        let checkIn = try await hearclear("checkin", "hall", "--file", music, "--duration", "40s", "--started-at", started, "--json")
        #expect(checkIn.status == 0, "\(checkIn.errors)")
        let receipt = try JSONDecoder().decode(CheckInReceipt.self, from: Data(checkIn.output.utf8))
        #expect(receipt.samples == 40)
        await server.stop()
        let details = try await database.storedSamples().compactMap(\.details)
        #expect(details.count == 40)
        // Music: the bands' balance changes from second to second; the details' sums cover every kept second.
        #expect(Set(details.map { $0.octaves[0] - $0.octaves[3] }).count > 10)
        #expect(try await database.query("SELECT SUM(detail_samples) FROM checkin_hour") == "\(receipt.samples - receipt.droppedSamples)")
    }

    @Test(arguments: StoreKind.allCases) func offlineTheCheckInWaitsAndSyncStoresItOnce(store: StoreKind) async throws {
        let database = try await ServerDatabase(store, named: "offline", in: folder)
        var server = try await ServerProcess(database: database)
        let port = server.reservedPort
        #expect(try await hearclear("register", "--server", server.url.absoluteString).status == 0)
        #expect(try await hearclear("venue", "add", "cafe", "--name", "Cafe", "--lat", "0", "--lng", "0", "--timezone", "UTC").status == 0)
        await server.stop()

        let offline = try await hearclear("checkin", "cafe", "--file", try recording())
        #expect(offline.status == 0, "\(offline.errors)")
        #expect(offline.output.contains("waits in"), "\(offline.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox.path).filter { $0.hasSuffix(".json") }.count == 1)
        let waiting = try await hearclear("sync")
        #expect(waiting.status != 0 && waiting.output.contains("1 waiting"))

        server = try await ServerProcess(database: database, port: port)
        let synced = try await hearclear("sync", "--json")
        #expect(synced.status == 0, "\(synced.errors)")
        let receipts = try JSONDecoder().decode([CheckInReceipt].self, from: Data(synced.output.utf8))
        #expect(receipts.count == 1 && receipts[0].venueID == "cafe" && receipts[0].status == .accepted)
        #expect(try await hearclear("sync").output.contains("0 uploaded"))
        let loudness = try JSONDecoder().decode(Loudness.self, from: Data(try await hearclear("loudness", "cafe", "--json").output.utf8))
        #expect(loudness.overall.checkins == 1 && loudness.overall.samples == 30)
    }

    /// Was: five minutes of measuring before learning the venue id is invalid or unknown.
    /// Was: a full-scale recording read 0.2 dBFS after the A filter, and the server refused the
    /// whole check-in (levels above 0); the check-in of the loudest venues was set aside.
    @Test func aFullScaleRecordingIsUploadedNotRefused() async throws {
        let server = try await ServerProcess(database: folder.appendingPathComponent("loud.sqlite").path)
        #expect(try await hearclear("register", "--server", server.url.absoluteString).status == 0)
        #expect(try await hearclear("venue", "add", "loud", "--name", "Loud", "--lat", "0", "--lng", "0", "--timezone", "UTC").status == 0)
        let fullScale = try temporaryFile("full.wav", WAVWriter.data(Signal.sine(frequency: 1000, dBFS: 0, seconds: 20, sampleRate: 48_000), sampleRate: 48_000, format: .int16))
        let checkIn = try await hearclear("checkin", "loud", "--file", fullScale, "--duration", "1m")
        #expect(checkIn.status == 0, "\(checkIn.errors)")
        #expect(checkIn.output.contains("loud: ") && checkIn.output.contains("20 samples"), "\(checkIn.output)")
        await server.stop()
    }

    /// Was: a muted microphone's check-in (digital silence) went up as the venue's quietest hour,
    /// and nothing told the person measuring.
    @Test func aMutedMicrophoneIsToldWhileMeasuringAndItsSilenceNotCounted() async throws {
        let server = try await ServerProcess(database: folder.appendingPathComponent("muted.sqlite").path)
        #expect(try await hearclear("register", "--server", server.url.absoluteString).status == 0)
        #expect(try await hearclear("venue", "add", "muted", "--name", "Muted", "--lat", "0", "--lng", "0", "--timezone", "UTC").status == 0)
        let silence = try temporaryFile("silence.wav", WAVWriter.data([Float](repeating: 0, count: 48_000 * 20), sampleRate: 48_000, format: .int16))
        let checkIn = try await hearclear("checkin", "muted", "--file", silence, "--duration", "1m")
        #expect(checkIn.errors.contains("no sound: is the microphone muted?"), "\(checkIn.errors)")
        #expect(
            checkIn.errors.contains("20 of 20 intervals held no sound at all (below -120 dBFS): the microphone was muted or gave zeros, so the check-in cannot count."),
            "\(checkIn.errors)")
        // Was: "muted: no level , 20 samples", a label's space left where there was none.
        #expect(
            checkIn.output.contains("muted: no level, 20 samples, 20 dropped, too_short: no second of it held sound: the microphone gave silence (was it muted?), so it does not count"),
            "\(checkIn.output)")
        #expect(try await hearclear("venue", "show", "muted").output.contains("no data yet"))
        await server.stop()
    }

    @Test(arguments: StoreKind.allCases) func checkinChecksTheVenueBeforeMeasuring(store: StoreKind) async throws {
        let server = try await ServerProcess(database: try await ServerDatabase(store, named: "refused", in: folder))
        #expect(try await hearclear("register", "--server", server.url.absoluteString).status == 0)
        let invalid = try await hearclear("checkin", "no such venue!", "--file", try recording())
        #expect(invalid.status != 0)
        #expect(
            invalid.errors.contains("\"no such venue!\" is not a venue id (1 to 64 of the characters A-Z a-z 0-9 _ -): `hearclear venue find no such venue!` finds a venue's id by words of its name"),
            "\(invalid.errors)")
        // Was: the server's "venue_id must be …" for a name typed as an id, to look it up or to add it.
        for command in [["venue", "show", "My Bar"], ["loudness", "My Bar"]] {
            let named = try await hearclear(command)
            #expect(named.status != 0 && named.errors.contains("`hearclear venue find My Bar` finds a venue's id by words of its name"), "\(named.errors)")
        }
        let added = try await hearclear("venue", "add", "Café Noir", "--name", "Café Noir", "--lat", "0", "--lng", "0", "--timezone", "Europe/Londn")
        #expect(added.status != 0 && added.errors.contains("it must be 1 to 64 of the characters A-Z a-z 0-9 _ -, like cafe-noir"), "\(added.errors)")
        let misspelt = try await hearclear("venue", "add", "cafe-noir", "--name", "Café Noir", "--lat", "0", "--lng", "0", "--timezone", "Europe/Londn")
        #expect(misspelt.status != 0 && misspelt.errors.contains("did you mean Europe/London?"), "\(misspelt.errors)")
        let unknown = try await hearclear("checkin", "no-such-venue", "--file", try recording())
        #expect(unknown.status != 0)
        #expect(unknown.errors.contains("the server does not know venue no-such-venue: add it first with `hearclear venue add no-such-venue"), "\(unknown.errors)")
        #expect(unknown.errors.contains("or find its id with `hearclear venue find WORDS OF ITS NAME`"), "\(unknown.errors)")
        #expect(!unknown.errors.contains("Checking in at"))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: outbox.path)) ?? []).filter { !$0.hasPrefix(".") }.isEmpty)
        // Weighting Z is not offered where the server would refuse it.
        let weighted = try await hearclear("checkin", "no-such-venue", "--file", try recording(), "--weighting", "Z")
        #expect(weighted.status != 0 && weighted.errors.contains("Unknown option '--weighting'"), "\(weighted.errors)")
    }

    @Test func devicesListsWhatALSAKnowsAsTextOrJSON() async throws {
        let plain = try await hearclear("devices")
        #expect(plain.status == 0)
        #expect(!plain.output.isEmpty)
        let json = try await hearclear("devices", "--json")
        #expect(json.status == 0)
        let devices = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: String]])
        // Was: "null\tDiscard all samples (playback) or generate zero samples (capture)" alone, on
        // a machine without a sound card, which a person took for a device to measure with.
        let onlyNull = devices.allSatisfy { $0["name"] == "null" }
        #expect(plain.output.contains("No microphone found") == onlyNull, "\(plain.output)")
        if onlyNull && !devices.isEmpty { #expect(plain.output.contains("ALSA lists only its null device, which gives silence"), "\(plain.output)") }
    }

    @Test func withoutAMicrophoneTheErrorSaysWhatToDo() async throws {
        let result = try await hearclear("meter", "-D", "no-such-device", "--duration", "1s")
        #expect(result.status != 0)
        let lines = result.errors.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains("cannot open ALSA capture device \"no-such-device\"") == true)
        #expect(lines.first?.contains("hearclear devices") == true)
    }

    @Test func analyzeRefusesWhatIsNotAWAVFile() async throws {
        let path = try temporaryFile("notes.wav", Data("just some text".utf8))
        let result = try await hearclear("analyze", path)
        #expect(result.status != 0)
        #expect(result.errors.contains("not an audio file libsndfile can read"), "\(result.errors)")
    }

    /// Was: a header with no line under it (`--json`: a document of no samples; `meter --file`:
    /// nothing at all), and success, for a WAV file of no samples, as if it had been measured.
    @Test(arguments: [["analyze"], ["analyze", "--json"], ["analyze", "--csv"], ["analyze", "--features"], ["meter", "--json", "--file"]])
    func aFileOfNoSamplesIsSaidToHoldNoAudio(command: [String]) async throws {
        let path = try temporaryFile("empty.wav", WAVWriter.data([], sampleRate: 48_000, format: .int16))
        let result = try await hearclear(command + [path])
        #expect(result.status != 0 && result.output.isEmpty, "\(result.status) \(result.output)")
        #expect(result.errors.trimmingCharacters(in: .whitespacesAndNewlines) == "Error: \(path) holds no audio: nothing to measure", "\(result.errors)")
    }

    /// Was: "Loud event at 0s: peak -19.84 dBFS, 3s", a tone peaking at -20 dBFS called loud for a reason the
    /// line did not give: loud is 85 dB after calibration, and without one the default's 110 dB.
    @Test func aLoudEventSaysHowLoudAfterTheCalibrationThatMadeItLoud() async throws {
        let path = try temporaryFile("tone.wav", WAVWriter.data(Signal.sine(frequency: 1000, dBFS: -20, seconds: 3, sampleRate: 48_000), sampleRate: 48_000, format: .int16))
        let uncalibrated = try await hearclear("analyze", path, "--no-classes")
        let event = try #require(uncalibrated.output.split(separator: "\n").first { $0.hasPrefix("Loud event at 0s: peak -19.8") }, "\(uncalibrated.output)")
        #expect(event.hasSuffix("dBFS (90.2 dB with the default calibration of 110 dB), 3s"), "\(event)")
        let calibrated = try await hearclear("analyze", path, "--no-classes", "--calibration", "108")
        #expect(calibrated.output.contains("dBFS (88.2 dB with the calibration of 108 dB), 3s"), "\(calibrated.output)")
        // Was: --json said "calibration_db": null beside the event, and not which calibration made it loud.
        for (options, calibration, judged) in [([String](), nil as Double?, 110.0), (["--calibration", "108"], 108, 108)] {
            let json = try await hearclear(["analyze", path, "--no-classes", "--json"] + options)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
            #expect(document["calibration_db"] as? Double == calibration && document["events_calibration_db"] as? Double == judged, "\(document)")
            #expect((document["events"] as? [Any])?.count == 1)
        }
    }

    /// Was: a float WAV holding one NaN stopped `analyze` with "Double value cannot be converted to
    /// Int because it is either infinite or NaN" and a backtrace.
    @Test func aFloatFileWithNotANumberIsMeasuredAndSaidSo() async throws {
        var signal = Signal.sine(frequency: 1000, dBFS: -37, seconds: 3, sampleRate: 48_000)
        signal[24_000] = .nan
        signal[100_000] = 1e30
        let path = try temporaryFile("odd-float.wav", WAVWriter.data(signal, sampleRate: 48_000, format: .float32))
        let result = try await hearclear("analyze", path, "--json")
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.errors.contains("1 sample that is not a number (NaN or infinity) read as silence and 1 sample beyond full scale read as full scale, the first at 0.50 s"), "\(result.errors)")
        let intervals = (try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])?["samples"] as? [[String: Any]]
        #expect(intervals?.count == 3 && intervals?.allSatisfy { ($0["avg"] as? Double)?.isFinite == true } == true, "\(result.output.prefix(300))")
    }

    /// Was: measured as if whole, silently.
    @Test func aFileShorterThanItsHeaderSaysIsMeasuredAndSaidSo() async throws {
        // 1 KB of audio under a header that declares 4 GB.
        var lying = WAVWriter.data(Signal.sine(frequency: 1000, dBFS: -20, seconds: 0.0107, sampleRate: 48_000), sampleRate: 48_000, format: .int16)
        let dataChunk = try #require(lying.range(of: Data("data".utf8)))
        lying.replaceSubrange(dataChunk.upperBound..<dataChunk.upperBound + 4, with: [0x00, 0x00, 0x00, 0xF0])
        let declared = try await hearclear("analyze", try temporaryFile("lying.wav", lying), "--interval", "0.1")
        #expect(declared.status == 0, "\(declared.errors)")
        #expect(declared.errors.contains("the file ends after 0.01 s of the 11 h 39 min (4.0 GB) its header declares; measured what is there"), "\(declared.errors)")
        #expect(declared.output.contains("1 interval of 0.1 s (the last 0.0107 s)"), "\(declared.output)")

        // Cut in the middle of a 16-bit sample.
        var cut = WAVWriter.data(Signal.sine(frequency: 1000, dBFS: -20, seconds: 1, sampleRate: 8000), sampleRate: 8000, format: .int16)
        cut.removeLast()
        let halfSample = try await hearclear("analyze", try temporaryFile("cut.wav", cut), "--json")
        #expect(halfSample.status == 0)
        #expect(halfSample.errors.contains("it ends in the middle of a sample frame (the last 1 byte is ignored)"), "\(halfSample.errors)")
        // A whole file says nothing.
        #expect(try await hearclear("analyze", try recording()).errors.isEmpty)
    }

    /// Was: "Internal error : SF_INFO struct incomplete." for the rates, and a measurement with exit
    /// 0 and no word for 1-bit samples and block align 0. Each header is refused in one line naming
    /// what it declares; nothing is measured. (The streaming reader, for pipes: `WAVFileTests`.)
    @Test(arguments: [
        (24, [0x00, 0x00, 0x00, 0x00] as [UInt8], "a sample rate of 0 Hz"), (24, [0xFF, 0xFF, 0xFF, 0xFF], "a sample rate of 4294967295 Hz"),
        (34, [0x01, 0x00], "1-bit samples"), (32, [0x00, 0x00], "a block align of 0 bytes"), (32, [0x03, 0x00], "a block align of 3 bytes"),
    ])
    func aHeaderThatLiesIsRefusedNamingWhatItDeclares(offset: Int, bytes: [UInt8], words: String) async throws {
        var lying = WAVWriter.data(Signal.sine(frequency: 1000, dBFS: -20, seconds: 1, sampleRate: 48_000), sampleRate: 48_000, format: .int16)
        lying.replaceSubrange(offset..<offset + bytes.count, with: bytes)
        let result = try await hearclear("analyze", try temporaryFile("lying.wav", lying))
        #expect(result.status != 0, "\(words)")
        let said = result.errors.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(said.split(separator: "\n").count == 1 && said.contains("the header declares \(words)"), "\(said)")
        #expect(result.output.isEmpty, "\(result.output)")
    }

    /// `-` is standard input, as most tools take it (`arecord -f S16_LE -r 48000 | hearclear analyze -`):
    /// the same intervals as the file it is fed from. Was: "cannot open -".
    @Test func aDashReadsStandardInput() async throws {
        let file = try recording()
        let client = Executable.buildFolder.appendingPathComponent("hearclear").path
        let piped = try await Executable.run(
            program: URL(fileURLWithPath: "/bin/sh"), ["-c", #""$0" analyze - --json < "$1""#, client, file], environment: environment)
        let named = try await hearclear("analyze", file, "--json")
        #expect(piped.status == 0 && named.status == 0, "\(piped.errors)")
        func intervals(_ result: Executable.Result) -> NSArray? {
            (try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])?["samples"] as? NSArray
        }
        let fromFile = intervals(named), fromPipe = intervals(piped)
        #expect(fromFile?.count ?? 0 > 0 && fromFile == fromPipe, "\(piped.output.prefix(300))")
    }

    /// FoundationNetworking and libcurl (about 8 MB) are loaded by the commands that talk to a
    /// server, and only by them; without the HTTP library next to it, the client says so in one line.
    @Test func onlyCommandsThatTalkToAServerLoadTheNetworkLibraries() async throws {
        let nowhere = environment.merging(["HEARCLEAR_SERVER": "http://127.0.0.1:9"]) { $1 }
        func loadsNetworking(_ arguments: [String]) async throws -> Bool {
            let result = try await Executable.run("hearclear", arguments, environment: nowhere.merging(["LD_DEBUG": "files"]) { $1 })
            return result.errors.contains("calling init: ") && (result.errors.contains("libFoundationNetworking.so") || result.errors.contains("libcurl"))
        }
        #expect(try await !loadsNetworking(["analyze", try recording()]))
        #expect(try await !loadsNetworking(["--help"]))
        #expect(try await loadsNetworking(["venue", "near", "1,1"]))

        // The executable alone, without the library that builds next to it.
        let alone = folder.appendingPathComponent("alone")
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Executable.buildFolder.appendingPathComponent("hearclear"), to: alone.appendingPathComponent("hearclear"))
        let result = try await Executable.run(program: alone.appendingPathComponent("hearclear"), ["venue", "near", "1,1"], environment: nowhere)
        #expect(result.status != 0)
        #expect(result.errors.contains("the HTTP library libHearClearTransport.so is missing from this installation"), "\(result.errors)")
        #expect(try await Executable.run(program: alone.appendingPathComponent("hearclear"), ["analyze", try recording()], environment: environment).status == 0)
    }

    /// Was: `--calibration nan` printed "nan dB with the calibration of nan dB", and a loud
    /// threshold of nan found no session; each is refused, as `meter` and `checkin` refuse them.
    @Test(arguments: [
        (["--calibration", "nan"], "--calibration must be between 0 and 200 dB"), (["--calibration", "1e300"], "--calibration must be between 0 and 200 dB"),
        (["--detect", "loud", "--threshold", "nan"], "--threshold for loud is a peak between 0 and 200 dB"),
        (["--detect", "loud", "--threshold", "inf"], "--threshold for loud is a peak between 0 and 200 dB"),
    ])
    func analyzeRefusesAnAbsurdCalibrationOrThreshold(options: [String], message: String) async throws {
        let result = try await Executable.run("hearclear", ["analyze", try recording()] + options)
        #expect(result.status != 0 && result.errors.contains(message) && result.output.isEmpty, "\(result.errors) \(result.output)")
    }

    /// Was: an NSCocoaErrorDomain dump.
    @Test func aFolderIsRefusedInOneLineNamingIt() async throws {
        let result = try await hearclear("analyze", folder.path)
        #expect(result.status != 0)
        #expect(result.errors.trimmingCharacters(in: .whitespacesAndNewlines) == "Error: \(folder.path) is a folder, not an audio file")
    }

    /// Was: `analyze` hung forever without a word.
    @Test func aFIFONobodyWritesToEndsWithAWord() async throws {
        let fifo = folder.appendingPathComponent("silent.wav").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let result = try await hearclear("analyze", fifo)
        #expect(result.status != 0)
        #expect(result.errors.contains("no audio arrived from \(fifo) for 10 s: is anything writing to it?"), "\(result.errors)")
    }

    /// Was: an error asking for an argument.
    @Test func calibrateWithoutAValueShowsTheSavedOne() async throws {
        #expect(try await hearclear("calibrate").output.contains("No calibration saved: the server applies its default (110 dB"))
        #expect(try await hearclear("calibrate", "112.5").status == 0)
        #expect(try await hearclear("calibrate").output.hasPrefix("Calibration: 112.5 dB"))
        #expect(try await hearclear("calibrate", "--clear").output.contains("Calibration cleared."))
        // Was: "The value '105,5' is invalid", to a person whose keyboard writes decimals with a comma.
        for arguments in [["calibrate", "105,5"], ["meter", "--calibration", "105,5"], ["analyze", "x.wav", "--calibration", "105,5"]] {
            let comma = try await hearclear(arguments)
            #expect(comma.status != 0 && comma.errors.contains("write the decimals after a point: 105.5"), "\(arguments): \(comma.errors)")
        }
    }

    /// Was: a person with a sound level meter subtracted two readings by hand (docs/client.md's
    /// steps). The −37 dBFS tone reads −40.01 dBFS(A): at 70 dB(A) on the meter, 110.
    @Test func calibrateMeasuresASteadySoundAgainstAMetersReading() async throws {
        let measured = try await hearclear("calibrate", "--reading", "70", "--file", try recording())
        #expect(measured.status == 0, "\(measured.errors)")
        #expect(measured.output == "Leq -40.01 dBFS over 00:10, steady within 0.0 dB: 70 dB(A) on the meter makes the calibration 110 dB.\nCalibration 110 dB saved.\n", "\(measured.output)")
        #expect(try await hearclear("calibrate").output.hasPrefix("Calibration: 110 dB"))
        // A sound that steps by 10 dB halfway is refused, and the saved calibration stays.
        let steps = Signal.sine(frequency: 1000, dBFS: -37, seconds: 5, sampleRate: 48_000) + Signal.sine(frequency: 1000, dBFS: -27, seconds: 5, sampleRate: 48_000)
        let unsteady = try await hearclear("calibrate", "--reading", "75", "--file", try temporaryFile("steps.wav", WAVWriter.data(steps, sampleRate: 48_000, format: .int16)))
        #expect(unsteady.status != 0 && unsteady.errors.contains("the sound was not steady: its level moved over 10.0 dB in 00:10"), "\(unsteady.errors)")
        #expect(unsteady.errors.contains("; nothing saved"), "\(unsteady.errors)")
        #expect(try await hearclear("calibrate").output.hasPrefix("Calibration: 110 dB"))
        let sourceWithoutReading = try await hearclear("calibrate", "--file", try recording())
        #expect(sourceWithoutReading.status != 0 && sourceWithoutReading.errors.contains("--device, --file and --rate say what to measure for --reading"))
    }

    /// The calibration steps of docs/client.md read the Leq `meter` ends with; uncalibrated it is dBFS.
    @Test func meterEndsWithTheRunsLeq() async throws {
        let plain = try await hearclear("meter", "--file", try recording())
        #expect(plain.status == 0, "\(plain.errors)")
        #expect(plain.output.split(separator: "\n").last == "Leq -40.01 dBFS over 00:30, 0 loud events", "\(plain.output.suffix(200))")
        let calibrated = try await hearclear("meter", "--file", try recording(), "--calibration", "110")
        #expect(calibrated.output.contains("Leq -40.01 dBFS over 00:30 (70.0 dB with the calibration of 110 dB), 0 loud events"))
        let json = try JSONSerialization.jsonObject(with: Data(try await hearclear("meter", "--file", try recording(), "--json").output.utf8)) as? [String: Any]
        #expect(abs((json?["leq"] as? Double ?? 0) + 40.01) < 0.01)
    }

    /// Was: "give the place as LATITUDE,LONGITUDE" for a pasted "-33.87, 151.21".
    /// Music measured on a Friday at 20:00 (the venue on UTC): the effort grid marks that hour, `--at`
    /// says it in words, and `quiet` ranks the venue there, each also as the server's JSON.
    @Test func theConversationCommandsShowEffortAndRankVenues() async throws {
        let server = try await ServerProcess(database: try await ServerDatabase(.sqlite, named: "talk", in: folder))
        #expect(try await hearclear("register", "--server", server.url.absoluteString).status == 0)
        let added = try await hearclear("venue", "add", "hall", "--name", "Music Hall", "--lat", "0", "--lng", "0", "--timezone", "UTC", "--kind", "bar")
        #expect(added.output.contains("hall  Music Hall  (bar, UTC)"), "\(added.output)")
        #expect(try await hearclear("venue", "add", "hall", "--name", "Music Hall", "--lat", "0", "--lng", "0", "--kind", "disco").errors.contains("bar"))
        // Was: saying a venue's kind meant typing its name and place again.
        let kind = try await hearclear("venue", "add", "hall", "--kind", "pub")
        #expect(kind.status == 0 && kind.output.contains("hall  Music Hall  (pub, UTC)"), "\(kind.output)\(kind.errors)")
        #expect(try await hearclear("venue", "add", "hall", "--kind", "bar").status == 0)
        let new = try await hearclear("venue", "add", "new-hall", "--name", "New Hall", "--kind", "pub")
        #expect(new.status != 0 && new.errors.contains("new-hall is a new venue: give its --name, --lat and --lng"), "\(new.errors)")
        let checkIn = try await hearclear(
            "checkin", "hall", "--file", "/usr/share/planetblupi/music/music000.ogg", "--duration", "30s", "--started-at", "2026-11-20T20:00:00Z")
        #expect(checkIn.status == 0, "\(checkIn.errors)")

        let grid = try await hearclear("loudness", "hall", "--effort")
        #expect(grid.status == 0, "\(grid.errors)")
        let friday = try #require(grid.output.split(separator: "\n").first { $0.hasPrefix("Fri") })
        // 20:00 measured; 19:00 next to it estimated (a tilde); 03:00, far from any measurement, nothing.
        #expect(Array(friday)[6 + 3 * 20 + 2] != "·" && Array(friday)[6 + 3 * 20 + 1] != "~", "\(grid.output)")
        #expect(Array(friday)[6 + 3 * 19 + 1] == "~" && Array(friday)[6 + 3 * 3 + 2] == "·", "\(grid.output)")
        let heatmap = try await hearclear("loudness", "hall")
        let heatmapFriday = try #require(heatmap.output.split(separator: "\n").first { $0.hasPrefix("Fri") })
        #expect(Array(heatmapFriday)[6 + 3 * 19 + 1] == "~" && heatmap.output.contains("~ estimated"), "\(heatmap.output)")
        let estimated = try await hearclear("loudness", "hall", "--at", "friday-19")
        #expect(estimated.output.hasPrefix("Music Hall, Friday 19:00: no one has measured this hour yet; similar hours suggest about "), "\(estimated.output)")
        #expect(grid.output.contains("Legend: 1 relaxed voice"))

        let hour = try await hearclear("loudness", "hall", "--at", "friday-20")
        #expect(hour.output.hasPrefix("Music Hall, Friday 20:00: ") && hour.output.contains("Conversation across a table: "), "\(hour.output)")
        #expect(hour.output.contains("  Spread: L10 ") && hour.output.contains("  Bursts: LAFmax reaches "), "\(hour.output)")
        let document = try JSONDecoder().decode(ConversationLoudness.self, from: Data(try await hearclear("loudness", "hall", "--at", "friday-20", "--json").output.utf8))
        #expect(document.grid[4].hours[20].silEstimated == false && document.grid[4].hours[20].effort != nil)
        #expect(document.grid[4].hours[20].l50 != nil && document.grid[4].hours[20].lafmaxP90 != nil)

        let quiet = try await hearclear("quiet", "--near", "-0.001,0.001", "--at", "fri-20")
        #expect(quiet.status == 0, "\(quiet.errors)")
        #expect(quiet.output.contains("1. Music Hall (hall), 157 m: ") && !quiet.output.contains("At most"), "\(quiet.output)")
        // Was: only coordinates, which a person at a venue does not know: near a venue is near its place.
        let nearVenue = try await hearclear("quiet", "--near", "hall", "--at", "fri-20")
        #expect(nearVenue.status == 0 && nearVenue.output.contains("1. Music Hall (hall), 0 m: "), "\(nearVenue.output)\(nearVenue.errors)")
        let listed = try await hearclear("venue", "near", "hall")
        #expect(listed.status == 0 && listed.output.contains("0 m  hall  Music Hall"), "\(listed.output)\(listed.errors)")
        let found = try await hearclear("venue", "find", "music", "--near", "hall")
        #expect(found.status == 0 && found.output.contains("0 m  hall  Music Hall"), "\(found.output)\(found.errors)")
        // Was: the venue itself and nothing after it, to a person asking for somewhere else.
        let alone = "No other venue within 1000 m of hall: a larger --radius looks further."
        #expect(nearVenue.output.hasSuffix("\n  \(alone)\n") && listed.output.hasSuffix("\n\(alone)\n"), "\(nearVenue.output)\(listed.output)")
        #expect(try await hearclear("venue", "find", "--near", "hall").output.hasSuffix("\n\(alone)\n") && !found.output.contains(alone))
        let unknown = try await hearclear("quiet", "--near", "nowhere-bar")
        #expect(unknown.status != 0 && unknown.errors.contains("no venue has the id “nowhere-bar”"), "\(unknown.errors)")
        let cut = try await hearclear("quiet", "--near", "-0.001,0.001", "--at", "fri-20", "--limit", "1")
        #expect(cut.output.hasSuffix("\nAt most 1 is listed: --limit lists more.\n"), "\(cut.output)")
        let ranking = try JSONDecoder().decode(VenueRanking.self, from: Data(try await hearclear("quiet", "--near", "0,0", "--at", "friday-20", "--json").output.utf8))
        #expect(ranking.venues.map(\.id) == ["hall"] && ranking.venues[0].cell.effort == document.grid[4].hours[20].effort)

        // Without --at: now, by this computer's clock (here 14 hours ahead of UTC, so a reading in
        // UTC, the server's zone or the venue's would name another day).
        let zone = try #require(TimeZone(identifier: "Pacific/Kiritimati"))
        let before = Self.weekdayHour(now: Date(), in: zone)
        let now = try await Executable.run("hearclear", ["quiet", "--near", "0,0"], environment: environment.merging(["TZ": zone.identifier]) { $1 })
        let after = Self.weekdayHour(now: Date(), in: zone)
        #expect(now.status == 0, "\(now.errors)")
        #expect(now.output.hasPrefix("Easiest conversation on \(before)") || now.output.hasPrefix("Easiest conversation on \(after)"), "\(now.output)")

        // A place that is none is the command line's fault: the command's own usage follows.
        let nowhere = try await hearclear("quiet", "--near", "95,0")
        #expect(nowhere.errors.contains("--near must be") && nowhere.errors.contains("Usage: hearclear quiet"), "\(nowhere.errors)")

        // loudness --at now: the hour it is at the venue (UTC), not on this computer's clock.
        let venueBefore = Self.weekdayHour(now: Date(), in: .gmt)
        let venueNow = try await Executable.run("hearclear", ["loudness", "hall", "--at", "now"], environment: environment.merging(["TZ": zone.identifier]) { $1 })
        let venueAfter = Self.weekdayHour(now: Date(), in: .gmt)
        #expect(venueNow.status == 0, "\(venueNow.errors)")
        #expect([venueBefore, venueAfter].contains { venueNow.output.hasPrefix("Music Hall, \($0.replacingOccurrences(of: " at ", with: " ")): ") }, "\(venueNow.output)")
        // Its own hour, read around its own run: an hour can turn between the commands above and it.
        let quietBefore = Self.weekdayHour(now: Date(), in: zone)
        let nowQuiet = try await Executable.run("hearclear", ["quiet", "--near", "0,0", "--at", "now"], environment: environment.merging(["TZ": zone.identifier]) { $1 })
        let quietAfter = Self.weekdayHour(now: Date(), in: zone)
        #expect([quietBefore, quietAfter].contains { nowQuiet.output.hasPrefix("Easiest conversation on \($0)") }, "\(nowQuiet.output)")
        let minutes = try await hearclear("loudness", "hall", "--at", "fri 8:30pm")
        #expect(minutes.status != 0 && minutes.errors.contains("“fri 8:30pm” lies in friday-20 (20:00 to 21:00)"), "\(minutes.errors)")

        let wrong = try await hearclear("quiet", "--near", "0,0", "--at", "someday")
        #expect(wrong.status != 0 && wrong.errors.contains(#"--at must be a weekday and an hour, like friday-20, "friday 20:00" or "fri 8pm""#), "\(wrong.errors)")
        // As people write an hour (WeekdayHourTypedTests has the forms).
        let typed = try await hearclear("quiet", "--near", "0,0", "--at", "saturday 20:00")
        #expect(typed.status == 0 && typed.output.hasPrefix("Easiest conversation on Saturday at 20:00"), "\(typed.output)\(typed.errors)")

        #expect(try await hearclear("venue", "add", "cafe", "--name", "Corner Cafe", "--lat", "0.001", "--lng", "0", "--timezone", "UTC").status == 0)
        let company = try await hearclear("quiet", "--near", "hall", "--at", "fri-20")
        #expect(company.output.contains("(cafe), 111 m: ") && !company.output.contains(alone), "\(company.output)")
        #expect(!(try await hearclear("venue", "near", "hall").output.contains(alone)))
    }

    /// Was: a listener with hearing loss typed --hearing-loss on every `loudness --effort` and
    /// `quiet`, and got typical hearing's answers whenever they forgot. Said once now, in the
    /// config, as the calibration is; one command may still say otherwise.
    @Test func aListenerWithHearingLossSaysSoOnce() async throws {
        let server = try await ServerProcess(database: try await ServerDatabase(.sqlite, named: "hearing", in: folder))
        #expect(try await hearclear("register", "--server", server.url.absoluteString).status == 0)
        #expect(try await hearclear("venue", "add", "hall", "--name", "Music Hall", "--lat", "0", "--lng", "0", "--timezone", "UTC").status == 0)
        let checkIn = try await hearclear(
            "checkin", "hall", "--file", "/usr/share/planetblupi/music/music000.ogg", "--duration", "30s", "--started-at", "2026-11-20T20:00:00Z")
        #expect(checkIn.status == 0, "\(checkIn.errors)")
        func heading(_ arguments: String...) async throws -> String {
            let grid = try await hearclear(["loudness", "hall", "--effort"] + arguments)
            #expect(grid.status == 0, "\(grid.errors)")
            return String(grid.output.prefix { $0 != ";" })
        }
        func rankedForHearingLoss(_ arguments: String...) async throws -> Bool {
            let ranking = try await hearclear(["quiet", "--near", "0,0", "--at", "friday-20", "--json"] + arguments)
            return try JSONDecoder().decode(VenueRanking.self, from: Data(ranking.output.utf8)).hearingLoss
        }
        let typical = "Music Hall: the voice a listener understands across a table"
        let withLoss = "Music Hall: the voice a listener with hearing loss understands across a table"

        #expect(try await hearclear("hearing").output.hasPrefix("Answers are for typical hearing."))
        #expect(try await heading() == typical)
        #expect(try await heading("--hearing-loss") == withLoss)
        #expect(try await rankedForHearingLoss() == false)

        let saved = try await hearclear("hearing", "loss")
        #expect(saved.status == 0 && saved.output.hasPrefix("Saved: "), "\(saved.errors)")
        #expect(try await hearclear("hearing").output.hasPrefix("Answers are for a listener with hearing loss."))
        #expect(try await heading() == withLoss)
        #expect(try await heading("--typical-hearing") == typical)
        #expect(try await rankedForHearingLoss() == true)
        #expect(try await rankedForHearingLoss("--typical-hearing") == false)
        // Registering again keeps it, as it keeps the calibration.
        #expect(try await hearclear("register", "--server", server.url.absoluteString).status == 0)
        #expect(try await heading() == withLoss)

        let both = try await hearclear("loudness", "hall", "--effort", "--hearing-loss", "--typical-hearing")
        #expect(both.status != 0 && both.errors.contains("--hearing-loss") && both.errors.contains("--typical-hearing"), "\(both.errors)")
        let neither = try await hearclear("hearing", "deaf")
        #expect(neither.status != 0 && neither.errors.contains("typical") && neither.errors.contains("loss"), "\(neither.errors)")

        #expect(try await hearclear("hearing", "typical").status == 0)
        #expect(try await heading() == typical)
    }

    /// Was: a check-in that does not count ended on "…, 10 samples, 0 dropped, too_short", the
    /// server's word for it, where the measuring page says what it means for the venue.
    @Test func aCheckInThatDoesNotCountSaysWhy() async throws {
        let server = try await ServerProcess(database: try await ServerDatabase(.sqlite, named: "short", in: folder))
        #expect(try await hearclear("register", "--server", server.url.absoluteString).status == 0)
        #expect(try await hearclear("venue", "add", "short-bar", "--name", "Short Bar", "--lat", "0", "--lng", "0", "--timezone", "UTC").status == 0)
        // A recording is as long as it is: sent, and the server's verdict said.
        let tenSeconds = try temporaryFile("ten.wav", WAVWriter.data(Signal.sine(frequency: 1000, dBFS: -37, seconds: 10, sampleRate: 48_000), sampleRate: 48_000, format: .int16))
        let checkIn = try await hearclear("checkin", "short-bar", "--file", tenSeconds)
        #expect(checkIn.status == 0, "\(checkIn.errors)")
        #expect(
            checkIn.output.contains("short-bar: 70.0 dB(A) quiet, 10 samples, 0 dropped, too_short: too short to count towards the venue's levels"),
            "\(checkIn.output)")
    }

    /// "Friday at 20:00", as `quiet` heads its list.
    static func weekdayHour(now: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.weekday, .hour], from: now)
        let names = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        return "\(names[parts.weekday! - 1]) at \(String(format: "%02d", parts.hour!)):00"
    }

    /// Was: `venue add` without --timezone sent this computer's zone, so a Sydney venue renamed from
    /// a computer on UTC moved to UTC, and every check-in there to hours eleven off; and a new
    /// venue took the zone of whatever computer added it.
    @Test func aVenuesTimeZoneIsNeverTakenFromAComputerElsewhere() async throws {
        let database = try await ServerDatabase(.sqlite, named: "zones", in: folder)
        let server = try await ServerProcess(database: database)
        #expect(try await hearclear("register", "--server", server.url.absoluteString).status == 0)
        func add(_ name: String, on zone: String) async throws -> Executable.Result {
            try await Executable.run(
                "hearclear", ["venue", "add", "sydney-bar", "--name", name, "--lat", "-33.87", "--lng", "151.21"],
                environment: environment.merging(["TZ": zone]) { $1 })
        }
        // A computer on UTC says nothing of where a venue is; one whose clocks read otherwise than
        // the venue's place is elsewhere. Both are refused, with the zone of the place nearest.
        for zone in ["Etc/UTC", "Europe/London"] {
            let refused = try await add("Sydney Bar", on: zone)
            #expect(refused.status != 0 && refused.errors.contains("--timezone Australia/Sydney"), "\(zone): \(refused.errors)")
        }
        #expect(try await database.query("SELECT COUNT(*) FROM venue") == "0")
        // A computer on the venue's time: its zone.
        let added = try await add("Sydney Bar", on: "Australia/Melbourne")
        #expect(added.status == 0 && added.output.contains("Sydney Bar  (Australia/Melbourne)"), "\(added.output) \(added.errors)")
        // Changed from anywhere without --timezone, the venue keeps its own.
        let renamed = try await add("The Sydney Bar", on: "Etc/UTC")
        #expect(renamed.status == 0 && renamed.output.contains("The Sydney Bar  (Australia/Melbourne)"), "\(renamed.output) \(renamed.errors)")
        await server.stop()
    }

    @Test(arguments: StoreKind.allCases) func venueNearTakesCoordinatesWithASpace(store: StoreKind) async throws {
        let server = try await ServerProcess(database: try await ServerDatabase(store, named: "near", in: folder))
        #expect(try await hearclear("register", "--server", server.url.absoluteString).status == 0)
        #expect(try await hearclear("venue", "add", "opera", "--name", "Opera Bar", "--lat", "-33.8572", "--lng", "151.2153", "--timezone", "Australia/Sydney").status == 0)
        let near = try await hearclear("venue", "near", "-33.857,", "151.215")
        #expect(near.status == 0, "\(near.errors)")
        #expect(near.output.contains("opera  Opera Bar"))
        // `find` with a place and no words is the same list (was: "Missing expected argument").
        let found = try await hearclear("venue", "find", "--near", "-33.857,151.215")
        #expect(found.status == 0 && found.output.contains("opera  Opera Bar"), "\(found.errors)")
        #expect(try await hearclear("venue", "find").errors.contains("give a word of the venue's name, or --near a place"))
    }

    /// The same recording checked in twice (a command run again) is one check-in: its id comes from
    /// the recording, and the server keeps a check-in once by its id. Another recording counts.
    @Test(arguments: StoreKind.allCases) func aRecordingCheckedInTwiceCountsOnce(store: StoreKind) async throws {
        let server = try await ServerProcess(database: try await ServerDatabase(store, named: "twice", in: folder))
        #expect(try await hearclear("register", "--server", server.url.absoluteString).status == 0)
        #expect(try await hearclear("venue", "add", "bar", "--name", "Bar", "--lat", "0", "--lng", "0", "--timezone", "UTC").status == 0)
        let file = try recording()
        let first = try await hearclear("checkin", "bar", "--file", file)
        #expect(first.status == 0 && first.output.contains("accepted") && !first.output.contains("before"), "\(first.output) \(first.errors)")
        let again = try await hearclear("checkin", "bar", "--file", file)
        #expect(again.status == 0 && again.output.contains("accepted (checked in before: it counts once)"), "\(again.output) \(again.errors)")
        let json = try await hearclear("loudness", "bar", "--json")
        #expect(try JSONDecoder().decode(Loudness.self, from: Data(json.output.utf8)).overall.checkins == 1)
        let other = try temporaryFile("other.wav", WAVWriter.data(Signal.sine(frequency: 500, dBFS: -30, seconds: 20, sampleRate: 48_000), sampleRate: 48_000, format: .int16))
        #expect(try await hearclear("checkin", "bar", "--file", other).status == 0)
        let both = try await hearclear("loudness", "bar", "--json")
        #expect(try JSONDecoder().decode(Loudness.self, from: Data(both.output.utf8)).overall.checkins == 2)
    }

    /// Two recordings of one length, format and start — two phones at one table, checked in from
    /// one device with the same `--started-at` — are two check-ins. Their ids came from the device,
    /// the venue, the start, the size and the rate alone, so the second, sealed while the server
    /// could not be reached, replaced the first in the outbox: one check-in went up, the other was lost.
    @Test func twoRecordingsOfOneLengthAndStartAreTwoCheckIns() async throws {
        let server = try await ServerProcess(database: try await ServerDatabase(.sqlite, named: "pair", in: folder))
        #expect(try await hearclear("register", "--server", server.url.absoluteString).status == 0)
        #expect(try await hearclear("venue", "add", "bar", "--name", "Bar", "--lat", "0", "--lng", "0", "--timezone", "UTC").status == 0)
        let first = try recording()
        let second = try temporaryFile(
            "second-phone.wav", WAVWriter.data(Signal.sine(frequency: 500, dBFS: -30, seconds: 30, sampleRate: 48_000), sampleRate: 48_000, format: .int16))
        let sizes = try [first, second].map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int }
        #expect(sizes[0] != nil && sizes[0] == sizes[1])
        let offline = environment.merging(["HEARCLEAR_SERVER": "http://127.0.0.1:9"]) { $1 }
        for file in [first, second] {
            let result = try await Executable.run("hearclear", ["checkin", "bar", "--file", file, "--started-at", "2026-11-20T21:15:00Z"], environment: offline)
            #expect(result.status == 0, "\(result.errors)")
        }
        let waiting = try FileManager.default.contentsOfDirectory(atPath: outbox.path).filter { $0.hasSuffix(".json") }
        #expect(waiting.count == 2, "\(waiting)")
        let sync = try await hearclear("sync")
        #expect(sync.status == 0, "\(sync.errors)")
        let json = try await hearclear("loudness", "bar", "--json")
        #expect(try JSONDecoder().decode(Loudness.self, from: Data(json.output.utf8)).overall.checkins == 2)
        // The same file again is still the same check-in.
        let again = try await hearclear("checkin", "bar", "--file", first, "--started-at", "2026-11-20T21:15:00Z")
        #expect(again.output.contains("accepted (checked in before: it counts once)"), "\(again.output) \(again.errors)")
        // Part of it is other content under the same id: refused, and said why in words (was: only
        // "server answered 409: check-in … was already uploaded with different content").
        let part = try await hearclear("checkin", "bar", "--file", first, "--started-at", "2026-11-20T21:15:00Z", "--duration", "20s")
        #expect(part.status != 0)
        #expect(part.errors.contains("this recording was checked in before with another --duration, --interval or --calibration, and counts as it was sent then"), "\(part.errors)")
        await server.stop()
    }

    /// A venue an operator merged into another answers 308 with the venue kept. The client follows
    /// no redirect, and said "not followed, as the device token goes only to the server configured:
    /// check the server URL", as if the server were the wrong one. It says which venue to use now.
    @Test func aMergedVenueSaysWhichVenueToUseNow() async throws {
        let database = try await ServerDatabase(.sqlite, named: "merged", in: folder)
        let server = try await ServerProcess(database: database)
        #expect(try await hearclear("register", "--server", server.url.absoluteString).status == 0)
        #expect(try await hearclear("venue", "add", "bar", "--name", "Bar", "--lat", "0", "--lng", "0", "--timezone", "UTC").status == 0)
        _ = try await database.query("INSERT INTO venue_alias (id, venue_id) VALUES ('old-bar', 'bar')")
        for arguments in [["loudness", "old-bar"], ["loudness", "old-bar", "--effort"], ["venue", "show", "old-bar"]] {
            let result = try await Executable.run("hearclear", arguments, environment: environment)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.errors.contains("venue old-bar was merged into bar: use bar"), "\(arguments): \(result.errors)")
            #expect(!result.errors.contains("check the server URL"), "\(arguments): \(result.errors)")
        }
        await server.stop()
    }

    /// A person knows the venue's name, not its id: `venue find` takes its words in any order, and a
    /// plus in them is a plus (a query is read as a form, where a bare plus is a space).
    @Test(arguments: StoreKind.allCases) func venueFindTakesWordsOfTheNameInAnyOrder(store: StoreKind) async throws {
        let server = try await ServerProcess(database: try await ServerDatabase(store, named: "find", in: folder))
        #expect(try await hearclear("register", "--server", server.url.absoluteString).status == 0)
        for (id, name, lat) in [("moon", "The Blue Moon Bar", "-33.8572"), ("opera", "Opera Bar", "-33.8572"), ("far", "Moon Far Away", "-33.95"),
                                ("plus", "Bar+Grill", "0"), ("space", "Bar Grill", "0")] {
            #expect(try await hearclear("venue", "add", id, "--name", name, "--lat", lat, "--lng", "151.2153", "--timezone", "Australia/Sydney").status == 0)
        }
        let found = try await hearclear("venue", "find", "moon", "bar")
        #expect(found.status == 0, "\(found.errors)")
        #expect(found.output == "moon  The Blue Moon Bar  (Australia/Sydney)  no data yet, 0 check-ins\n", "\(found.output)")
        let near = try await hearclear("venue", "find", "MOON", "--near", "-33.857,151.215", "--radius", "500")
        #expect(near.output.contains("m  moon  The Blue Moon Bar") && !near.output.contains("Far Away"), "\(near.output)")
        let plus = try await hearclear("venue", "find", "bar+grill")
        #expect(plus.output.contains("plus  Bar+Grill") && !plus.output.contains("space"), "\(plus.output)")
        let none = try await hearclear("venue", "find", "moon", "pub")
        #expect(none.status == 0 && none.output == "No venue has every word of “moon pub” in its name.\n", "\(none.output)")
        let wrong = try await hearclear("venue", "find", "moon", "--near", "south")
        #expect(wrong.status != 0 && wrong.errors.contains("no venue has the id “south”: --near takes LATITUDE,LONGITUDE"), "\(wrong.errors)")
        let neither = try await hearclear("venue", "find", "moon", "--near", "33.8 S")
        #expect(neither.status != 0 && neither.errors.contains("--near must be LATITUDE,LONGITUDE in degrees, latitude (-90 to 90) first, like -33.87,151.21, or a venue's id"), "\(neither.errors)")
        // Longitude first, as maps' URLs and GeoJSON write it: the error must say which comes first.
        let swapped = try await hearclear("venue", "find", "moon", "--near", "151.215,-33.857")
        #expect(swapped.status != 0 && swapped.errors.contains("latitude (-90 to 90) first"), "\(swapped.errors)")
        // Was: two of four bars listed, and nothing said of the others.
        let cut = try await hearclear("venue", "find", "bar", "--limit", "2")
        #expect(cut.output.split(separator: "\n").count == 3 && cut.output.hasSuffix("At most 2 are listed: --limit lists more, or add a word.\n"), "\(cut.output)")
        let whole = try await hearclear("venue", "find", "bar", "--limit", "5")
        #expect(!whole.output.contains("At most"), "\(whole.output)")
        let nearby = try await hearclear("venue", "near", "-33.857,151.215", "--limit", "1")
        #expect(nearby.output.hasSuffix("At most 1 is listed: --limit lists more.\n"), "\(nearby.output)")
    }

    /// A recording made on Friday night lands in Friday night's hours, not at upload time.
    @Test(arguments: StoreKind.allCases) func aRecordingCountsWhenItWasMadeNotWhenItIsUploaded(store: StoreKind) async throws {
        let database = try await ServerDatabase(store, named: "when", in: folder)
        let server = try await ServerProcess(database: database)
        #expect(try await hearclear("register", "--server", server.url.absoluteString).status == 0)
        #expect(try await hearclear("venue", "add", "pub", "--name", "Pub", "--lat", "0", "--lng", "0", "--timezone", "Europe/London").status == 0)
        // Written at 21:30:30 UTC on Friday 2026-11-20; 30 s long, so begun at 21:30:00.
        let file = try recording()
        try FileManager.default.setAttributes([.modificationDate: Timestamp.parse("2026-11-20T21:30:30Z")!], ofItemAtPath: file)
        #expect(try await hearclear("checkin", "pub", "--file", file).status == 0)
        let analysed = try JSONSerialization.jsonObject(with: Data(try await hearclear("analyze", file, "--json").output.utf8)) as? [String: Any]
        #expect(analysed?["started_at"] as? String == "2026-11-20T21:30:00Z")
        // A file that says when it was recorded is believed.
        let dated = folder.appendingPathComponent("dated.flac").path
        #expect(try await Executable.run(program: URL(fileURLWithPath: "/usr/bin/sox"), [file, "--comment", "DATE=2026-11-20T19:00:00Z", dated]).status == 0)
        let tagged = try JSONSerialization.jsonObject(with: Data(try await hearclear("analyze", dated, "--json").output.utf8)) as? [String: Any]
        #expect(tagged?["started_at"] as? String == "2026-11-20T19:00:00Z")
        // Told otherwise: Saturday 2026-11-21 at 01:00 in Sydney (Friday 14:00 UTC).
        #expect(try await hearclear("checkin", "pub", "--file", file, "--started-at", "2026-11-21T01:00:00+11:00").status == 0)
        #expect(try await hearclear("meter", "--started-at", "2026-11-21T01:00:00Z").status != 0)
        #expect(try await hearclear("checkin", "pub", "--started-at", "2026-11-21T01:00:00Z").errors.contains("--started-at is for recordings"))
        await server.stop()
        #expect(try await database.query("SELECT \(database.epoch("started_at")) FROM checkin ORDER BY started_at")
            == "\(Int(Timestamp.parse("2026-11-20T14:00:00Z")!.timeIntervalSince1970))\n\(Int(Timestamp.parse("2026-11-20T21:30:00Z")!.timeIntervalSince1970))")
    }

    @Test(arguments: StoreKind.allCases) func forgetDeletesTheDeviceItsCheckInsAndWhatWaitsHere(store: StoreKind) async throws {
        let database = try await ServerDatabase(store, named: "forget", in: folder)
        let server = try await ServerProcess(database: database)
        #expect(try await hearclear("register", "--server", server.url.absoluteString).status == 0)
        #expect(try await hearclear("venue", "add", "cafe", "--name", "Cafe", "--lat", "0", "--lng", "0", "--timezone", "Asia/Kolkata").status == 0)
        #expect(try await hearclear("checkin", "cafe", "--file", try recording()).status == 0)
        // Without a terminal to ask on, nothing happens without --yes.
        let unconfirmed = try await hearclear("forget")
        #expect(unconfirmed.status != 0 && unconfirmed.errors.contains("add --yes to confirm"))
        #expect(try await database.query("SELECT COUNT(*) FROM checkin") == "1")

        let forgotten = try await hearclear("forget", "--yes")
        #expect(forgotten.status == 0, "\(forgotten.errors)")
        #expect(forgotten.output.contains("Deleted device"))
        #expect(try await database.query("SELECT (SELECT COUNT(*) FROM device) || '/' || (SELECT COUNT(*) FROM checkin)") == "0/0")
        let config = try String(contentsOf: folder.appendingPathComponent("config/hearclear/config.json"), encoding: .utf8)
        #expect(!config.contains("token") && config.contains("server"))
        // What went wrong while running, without the usage of the whole program after it (was:
        // "Usage: hearclear <subcommand>", as if the command line had been wrong).
        let unregistered = try await hearclear("sync")
        #expect(unregistered.errors.contains("this device is not registered") && !unregistered.errors.contains("Usage:"), "\(unregistered.errors)")
        // No usable check-in is left.
        #expect(try await hearclear("loudness", "cafe").output.contains(": nobody has measured here yet."))
        #expect(try await hearclear("loudness", "cafe", "--json").status != 0)
    }
}

/// The levels agree with sox (`stats`, per second) on the same file: the independent meter.
@Suite struct SoxAgreementTests {
    /// A mix of tones under 4 kHz and a burst, so levels change from second to second.
    func signal() -> [Float] {
        let rate = 48_000
        let low = Signal.sine(frequency: 200, dBFS: -18, seconds: 5, sampleRate: rate)
        let mid = Signal.sine(frequency: 1500, dBFS: -26, seconds: 5, sampleRate: rate)
        return zip(low, mid).enumerated().map { index, pair in
            (index / rate) == 2 ? (pair.0 + pair.1) * 3 : pair.0 + pair.1 * Float(index / rate + 1) / 5
        }
    }

    /// Per second, or for the whole file.
    func soxStats(_ path: String, filter: [String] = [], perSecond: Bool = true) async throws -> [(rms: Double, peak: Double)] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        process.arguments = perSecond ? [path, "-n", "trim", "0", "1"] + filter + ["stats", ":", "newfile", ":", "restart"] : [path, "-n"] + filter + ["stats"]
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = await onAThreadOfItsOwn {
            defer { process.waitUntilExit() }
            return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        let lines = text.split(separator: "\n")
        let rms = lines.filter { $0.hasPrefix("RMS lev dB") }.compactMap { Double($0.split(separator: " ").last!) }
        let peak = lines.filter { $0.hasPrefix("Pk lev dB") }.compactMap { Double($0.split(separator: " ").last!) }
        return Array(zip(rms, peak))
    }

    func hearclearAnalyze(_ path: String, weighting: String) async throws -> [Sample] {
        let result = try await Executable.run("hearclear", ["analyze", path, "--json", "--weighting", weighting])
        struct Document: Decodable { let samples: [Sample] }
        return try JSONDecoder().decode(Document.self, from: Data(result.output.utf8)).samples
    }

    @Test func unweightedLevelsMatchSoxStats() async throws {
        let path = try temporaryFile("mix.wav", WAVWriter.data(signal(), sampleRate: 48_000, format: .int16))
        let sox = try await soxStats(path)
        let ours = try await hearclearAnalyze(path, weighting: "Z")
        #expect(sox.count == 5 && ours.count == 5)
        for (theirs, mine) in zip(sox, ours) {
            #expect(abs(theirs.rms - mine.avg) <= 0.01, "sox \(theirs.rms) vs \(mine.avg)")
            #expect(abs(theirs.peak - mine.peak) <= 0.01, "sox \(theirs.peak) vs \(mine.peak)")
        }
    }

    /// A file that ends part-way through an interval: its last interval counts in the Leq for the
    /// time it lasted, as sox's level of the whole file counts every sample once. Ten quiet seconds,
    /// then half a second 30 dB louder, counted as a whole second, read 2.8 dB above sox.
    @Test func theLeqWeighsAPartialLastIntervalByItsLength() async throws {
        let quiet = Signal.sine(frequency: 1000, dBFS: -40, seconds: 10, sampleRate: 48_000)
        let loud = Signal.sine(frequency: 1000, dBFS: -10, seconds: 0.5, sampleRate: 48_000)
        let path = try temporaryFile("tail.wav", WAVWriter.data(quiet + loud, sampleRate: 48_000, format: .int16))
        let theirs = try #require(try await soxStats(path, perSecond: false).first).rms
        let result = try await Executable.run("hearclear", ["analyze", path, "--json", "--weighting", "Z"])
        struct Document: Decodable {
            let leq: Double
            let duration_s: Double
            let samples: [Sample]
        }
        let analysis = try JSONDecoder().decode(Document.self, from: Data(result.output.utf8))
        #expect(analysis.samples.count == 11 && analysis.duration_s == 10.5)
        #expect(abs(analysis.leq - theirs) <= 0.02, "ours \(analysis.leq), sox \(theirs)")
        let text = try await Executable.run("hearclear", ["analyze", path, "--weighting", "Z"])
        #expect(text.output.contains("11 intervals of 1.0 s (the last 0.5 s)"), "\(text.output)")
        #expect(text.output.contains(String(format: "Leq %.2f dBFS", analysis.leq)))
    }

    /// The octave bands read like sox's steep FIR band-passes (`sinc`, 32767 taps) between the same
    /// band edges, on pink noise (every band the same) and on noise limited to 1.7–2.3 kHz (the 2 kHz
    /// band reads it all, its neighbours only what their skirts let through). Within 0.4 dB: a sixth-order band-pass lets a little more noise
    /// through its skirts than a brick wall, as IEC 61260-1 allows.
    @Test(arguments: [("pink", ["synth", "10", "pinknoise", "vol", "0.5"]), ("2 kHz band", ["synth", "10", "whitenoise", "vol", "0.5", "sinc", "-a", "100", "-n", "32767", "1700-2300"])])
    func octaveBandsReadLikeSoxBandPasses(name: String, synth: [String]) async throws {
        let folder = try temporaryFile("\(name).wav", Data()).replacingOccurrences(of: "\(name).wav", with: "")
        let path = folder + "noise.wav"
        #expect(try await Executable.run(program: URL(fileURLWithPath: "/usr/bin/sox"), ["-n", "-r", "48000", "-b", "16", path] + synth).status == 0)
        let result = try await Executable.run("hearclear", ["analyze", path, "--json"])
        struct Document: Decodable { let samples: [[String: Double?]] }
        let intervals = try JSONDecoder().decode(Document.self, from: Data(result.output.utf8)).samples
        #expect(intervals.count == 10)
        let g = pow(10, 3.0 / 10)
        for (index, band) in ["oct_500", "oct_1000", "oct_2000", "oct_4000"].enumerated() {
            let midband = 1000 * pow(g, Double(index - 1))
            let edges = "\(Int((midband / pow(g, 0.5)).rounded()))-\(Int((midband * pow(g, 0.5)).rounded()))"
            let sox = try await soxStats(path, filter: ["sinc", "-a", "100", "-n", "32767", edges], perSecond: false)
            let theirs = try #require(sox.first).rms
            let ours = try #require(Level.energyMean(intervals.compactMap { $0[band] ?? nil }))
            if name == "pink" || band == "oct_2000" {
                #expect(abs(ours - theirs) <= 0.4, "\(name), \(band): ours \(ours), sox \(theirs)")
            } else {
                // Sox's brick walls see nothing there; ours, a neighbour's skirt.
                let inBand = try #require(Level.energyMean(intervals.compactMap { $0["oct_2000"] ?? nil }))
                #expect(ours < inBand - (band == "oct_500" ? 30 : 6), "\(name), \(band): ours \(ours), 2 kHz band \(inBand)")
            }
        }
    }

    /// Every format libsndfile reads measures like sox on the same decoded samples: lossless ones
    /// like the WAV they were made from; Ogg as sox decodes it; MP3 as mpg123 decodes it.
    @Test(arguments: [
        ("flac", ["sox"], 0.01), ("ogg", ["sox"], 0.02), ("u8.wav", ["sox", "-b", "8", "-e", "unsigned"], 0.01),
        ("ulaw.wav", ["sox", "-e", "u-law"], 0.01), ("alaw.wav", ["sox", "-e", "a-law"], 0.01), ("mp3", ["lame"], 0.1),
        ("rf64", ["sndfile-convert"], 0.01), ("extensible.wav", ["extensible"], 0.01), ("opus", ["opusenc"], 0.1),
    ])
    func everyFormatMeasuresLikeSoxOnTheSameDecodedSamples(suffix: String, encoder: [String], tolerance: Double) async throws {
        let wav = try temporaryFile("mix.wav", WAVWriter.data(signal(), sampleRate: 48_000, format: .int16))
        let folder = URL(fileURLWithPath: wav).deletingLastPathComponent()
        let encoded = folder.appendingPathComponent("mix.\(suffix)").path
        switch encoder[0] {
        case "extensible":
            try WAVWriter.data(signal(), sampleRate: 48_000, format: .extensibleInt16).write(to: URL(fileURLWithPath: encoded))
        case "lame":
            #expect(try await Executable.run(program: URL(fileURLWithPath: "/usr/bin/lame"), ["--quiet", "-b", "192", wav, encoded]).status == 0)
        case "opusenc":
            #expect(try await Executable.run(program: URL(fileURLWithPath: "/usr/bin/opusenc"), ["--quiet", "--bitrate", "128", wav, encoded]).status == 0)
        case "sndfile-convert":
            #expect(try await Executable.run(program: URL(fileURLWithPath: "/usr/bin/sndfile-convert"), Array(encoder.dropFirst()) + [wav, encoded]).status == 0)
        default:
            let made = try await Executable.run(program: URL(fileURLWithPath: "/usr/bin/sox"), [wav] + encoder.dropFirst() + [encoded])
            #expect(made.status == 0, "\(made.errors)")
        }
        // sox reads what it wrote; for the others, the WAV they were made from (lossless), or mpg123's decoding.
        var reference = encoder[0] == "sox" ? encoded : wav
        if suffix == "mp3" {
            reference = folder.appendingPathComponent("decoded.wav").path
            #expect(try await Executable.run(program: URL(fileURLWithPath: "/usr/bin/mpg123"), ["-q", "-w", reference, encoded]).status == 0)
        }
        if suffix == "opus" {
            reference = folder.appendingPathComponent("decoded.wav").path
            #expect(try await Executable.run(program: URL(fileURLWithPath: "/usr/bin/opusdec"), ["--quiet", "--rate", "48000", encoded, reference]).status == 0)
        }
        let sox = try await soxStats(reference)
        let ours = try await hearclearAnalyze(encoded, weighting: "Z")
        #expect(ours.count == 5 && sox.count >= 5, "\(ours.count) intervals, sox \(sox.count)")
        for (theirs, mine) in zip(sox, ours).dropFirst() {
            #expect(abs(theirs.rms - mine.avg) <= tolerance, "\(suffix): sox \(theirs.rms) vs \(mine.avg)")
        }
    }

    @Test func aWeightedLevelsMatchSoxsBiquadChain() async throws {
        let path = try temporaryFile("mix.wav", WAVWriter.data(signal(), sampleRate: 48_000, format: .int16))
        // The A-weighting filter at 48 kHz as three biquads (the bilinear transform of the analog
        // filter docs/levels.md describes, with its +2.000 dB normalisation); below 4 kHz its
        // plain bilinear design and ours agree within a few hundredths of a dB.
        let chain = [
            "biquad", "0.2343017923", "0.468603584599", "0.2343017923", "1", "-0.22455845806", "0.012606625272",
            "biquad", "1", "-2", "1", "1", "-1.89387049487", "0.895159769228",
            "biquad", "1", "-2", "1", "1", "-1.994614455846", "0.994621706866",
        ]
        let sox = try await soxStats(path, filter: chain)
        let ours = try await hearclearAnalyze(path, weighting: "A")
        #expect(sox.count == 5 && ours.count == 5)
        // The first second holds the filters' start-up, where the two designs differ most.
        for (theirs, mine) in zip(sox, ours).dropFirst() {
            #expect(abs(theirs.rms - mine.avg) <= 0.1, "sox \(theirs.rms) vs \(mine.avg)")
        }
    }
}

/// The real ALSA path without a sound card: ALSA's `file` plugin replays a raw file as a capture device.
@Suite struct ALSACaptureTests {
    @Test func capturedLevelsEqualTheLevelsOfTheSameFile() async throws {
        let folder = try temporaryFolder()
        // Longer than the capture: reading past the end of infile gives stale data.
        let audio = zip(Signal.sine(frequency: 300, dBFS: -15, seconds: 5, sampleRate: 48_000), Signal.sine(frequency: 3000, dBFS: -30, seconds: 5, sampleRate: 48_000)).map { $0 + $1 }
        let raw = folder.appendingPathComponent("in.raw")
        try WAVWriter.rawPCM16(audio).write(to: raw)
        let wav = folder.appendingPathComponent("in.wav")
        try WAVWriter.data(audio, sampleRate: 48_000, format: .int16).write(to: wav)
        let conf = folder.appendingPathComponent("filemic.conf")
        try Data("""
            pcm.filemic {
                type file
                slave.pcm "null"
                file "/dev/null"
                infile "\(raw.path)"
                format "raw"
            }
            """.utf8).write(to: conf)

        for weighting in ["Z", "A"] {
            let captured = try await Executable.run(
                "hearclear", ["meter", "-D", "filemic", "--duration", "3s", "--json", "--weighting", weighting],
                environment: ["ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:\(conf.path)", "HOME": folder.path])
            #expect(captured.status == 0, "\(captured.errors)")
            let analysed = try await Executable.run("hearclear", ["analyze", wav.path, "--json", "--weighting", weighting], environment: ["HOME": folder.path])
            struct Document: Decodable { let sample_rate: Int; let samples: [Sample] }
            let fromALSA = try JSONDecoder().decode(Document.self, from: Data(captured.output.utf8))
            let fromFile = try JSONDecoder().decode(Document.self, from: Data(analysed.output.utf8))
            #expect(fromALSA.sample_rate == 48_000)
            #expect(fromALSA.samples.count == 3)
            for (a, b) in zip(fromALSA.samples, fromFile.samples) {
                #expect(a.t == b.t)
                #expect(abs(a.avg - b.avg) < 0.001 && abs(a.peak - b.peak) < 0.001, "\(weighting): ALSA \(a) vs file \(b)")
            }
        }
    }
}

/// A check-in cut short: by Ctrl-C (it still uploads) or by SIGKILL (the next sync recovers it).
/// Audio comes through a FIFO that stays open, so the client is still measuring when the signal comes.
@Suite struct InterruptedCheckInTests {
    let folder: URL
    let environment: [String: String]

    init() throws {
        folder = try temporaryFolder()
        environment = clientEnvironment(in: folder)
        // Should the client die, writing to its FIFO must fail the test, not kill the test runner.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Starts `hearclear checkin` reading 21 s of audio from a FIFO kept open, and sends it `signal`
    /// once the client reports 21 s measured (its plain progress line every 10 s). The signal goes
    /// from the thread that saw the line: waiting for this task's turn on a loaded machine could
    /// outlast the client's 10 s wait for more audio.
    func startCheckIn(server: ServerProcess, then signal: Int32) async throws -> (process: Process, writer: FileHandle) {
        #expect(try await Executable.run("hearclear", ["register", "--server", server.url.absoluteString], environment: environment).status == 0)
        #expect(try await Executable.run("hearclear", ["venue", "add", "pub", "--name", "Pub", "--lat", "0", "--lng", "0", "--timezone", "UTC"], environment: environment).status == 0)
        let fifo = folder.appendingPathComponent("mic.wav").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let process = Process()
        process.executableURL = Executable.buildFolder.appendingPathComponent("hearclear")
        process.arguments = ["checkin", "pub", "--file", fifo, "--duration", "5m"]
        process.environment = Executable.environment(adding: environment)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        // A WAV header that declares more audio than is sent: the reader waits for the rest.
        var wav = WAVWriter.data(Signal.sine(frequency: 1000, dBFS: -40, seconds: 21, sampleRate: 8000), sampleRate: 8000, format: .int16)
        wav.replaceSubrange(wav.count - 8000 * 2 * 21 - 4..<wav.count - 8000 * 2 * 21, with: [0x00, 0x00, 0x00, 0x10])
        let sent = wav
        // Opening a FIFO, writing to it and reading the client's progress all block.
        let (opened, progress) = await onAThreadOfItsOwn { () -> (FileHandle?, String) in
            guard let writer = FileHandle(forWritingAtPath: fifo) else { return (nil, "") }
            writer.write(sent)
            var progress = ""
            while !progress.contains("00:21 / 05:00") {
                let data = errors.fileHandleForReading.availableData
                guard !data.isEmpty else { break }
                progress += String(decoding: data, as: UTF8.self)
            }
            kill(process.processIdentifier, signal)
            return (writer, progress)
        }
        let writer = try #require(opened)
        #expect(progress.contains("00:21 / 05:00"), "\(progress)")
        return (process, writer)
    }

    @Test(arguments: StoreKind.allCases) func ctrlCEndsTheSessionAndStillUploads(store: StoreKind) async throws {
        let server = try await ServerProcess(database: try await ServerDatabase(store, named: "int", in: folder))
        let (process, writer) = try await startCheckIn(server: server, then: SIGINT)
        defer { try? writer.close() }
        let output = process.standardOutput as! Pipe
        let (printed, said) = await onAThreadOfItsOwn {
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let said = String(decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (printed, said)
        }
        #expect(process.terminationStatus == 0)
        #expect(said.contains("Stopped early: uploading what was measured."))
        #expect(printed.contains("pub: 67.0 dB(A) quiet, 21 samples"), "\(printed)")
    }

    @Test(arguments: StoreKind.allCases) func aKilledSessionLosesAtMostTheCurrentSecond(store: StoreKind) async throws {
        let server = try await ServerProcess(database: try await ServerDatabase(store, named: "kill", in: folder))
        let (process, writer) = try await startCheckIn(server: server, then: SIGKILL)
        defer { try? writer.close() }
        await onAThreadOfItsOwn { process.waitUntilExit() }
        let synced = try await Executable.run("hearclear", ["sync"], environment: environment)
        #expect(synced.output.contains("pub: 67.0 dB(A) quiet, 21 samples"), "\(synced.output) \(synced.errors)")
        #expect(synced.output.contains("1 uploaded"))
    }
}

/// A network that fails the client in the ways networks do: it retries, and the server stores each
/// check-in once.
@Suite struct UnreliableNetworkTests {
    let folder: URL
    let environment: [String: String]

    init() throws {
        folder = try temporaryFolder()
        environment = clientEnvironment(in: folder)
    }

    func recording() throws -> String {
        try temporaryFile("venue.wav", WAVWriter.data(Signal.sine(frequency: 1000, dBFS: -37, seconds: 20, sampleRate: 16_000), sampleRate: 16_000, format: .int16))
    }

    /// A server, a proxy in front of it spoiling uploads as told, and a registered client with a venue.
    func setUp(_ store: StoreKind, _ spoils: [FlakyProxy.Spoil]) async throws -> (ServerProcess, FlakyProxy, database: ServerDatabase) {
        let database = try await ServerDatabase(store, named: "flaky", in: folder)
        let server = try await ServerProcess(database: database)
        let proxy = try FlakyProxy(upstream: server.port, spoils: spoils)
        #expect(try await Executable.run("hearclear", ["register", "--server", "http://127.0.0.1:\(proxy.port)"], environment: environment).status == 0)
        #expect(try await Executable.run("hearclear", ["venue", "add", "bar", "--name", "Bar", "--lat", "0", "--lng", "0", "--timezone", "UTC"], environment: environment).status == 0)
        return (server, proxy, database)
    }

    var outbox: URL { folder.appendingPathComponent("data/hearclear/outbox") }

    @Test(arguments: StoreKind.allCases) func a500AndADroppedAnswerAreRetriedAndTheCheckInIsStoredOnce(store: StoreKind) async throws {
        let (server, proxy, database) = try await setUp(store, [.serverError, .serverError, .dropAnswer])
        // The check-in tries once, so that ending it stays quick; then it waits.
        let checkIn = try await Executable.run("hearclear", ["checkin", "bar", "--file", try recording()], environment: environment)
        #expect(checkIn.status == 0, "\(checkIn.errors)")
        #expect(checkIn.output.contains("server answered 500: spoiled on purpose") && checkIn.output.contains("waits in"), "\(checkIn.output)")
        // sync retries: another 500, an answer lost after the server stored it, then the stored one again.
        let result = try await Executable.run("hearclear", ["sync"], environment: environment)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("bar: 70.0 dB(A) quiet, 20 samples"), "\(result.output)")
        // The answer that came had the server's 200: it held the check-in from the answer lost.
        #expect(result.output.contains("accepted (checked in before: it counts once)"), "\(result.output)")
        #expect(proxy.uploads.withLock { $0 } == 4)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox.path).isEmpty)
        await server.stop()
        #expect(try await database.query("SELECT COUNT(*) FROM checkin") == "1")
    }

    /// The client sends API v2; a server that answers 404 there (older than v2) gets v1, and is
    /// remembered: the next check-in goes to v1 at once.
    @Test(arguments: StoreKind.allCases) func anOlderServerGetsVersion1AndIsRemembered(store: StoreKind) async throws {
        let (server, proxy, database) = try await setUp(store, [])
        proxy.olderServer = true
        for attempt in 1...2 {
            // Two recordings (a recording checked in again would be the same check-in).
            let checkIn = try await Executable.run(
                "hearclear", ["checkin", "bar", "--file", try recording(), "--started-at", "2026-11-20T20:0\(attempt):00Z"], environment: environment)
            #expect(checkIn.status == 0 && checkIn.output.contains("bar: 70.0 dB(A) quiet, 20 samples"), "\(checkIn.output) \(checkIn.errors)")
            #expect(proxy.versionTwoUploads.withLock { $0 } == 1, "attempt \(attempt)")
        }
        #expect(proxy.uploads.withLock { $0 } == 2)
        await server.stop()
        #expect(try await database.query("SELECT COUNT(*) FROM checkin") == "2")
        #expect(try await database.storedSamples().allSatisfy { $0.details == nil })
    }

    @Test(arguments: StoreKind.allCases) func aClientKilledWhileSyncingUploadsOnceLater(store: StoreKind) async throws {
        let (server, proxy, database) = try await setUp(store, [.dropRequest, .dropAnswer, .hold])
        // Lost on the way: the check-in's one try leaves it in the outbox.
        let first = try await Executable.run("hearclear", ["checkin", "bar", "--file", try recording()], environment: environment)
        #expect(first.output.contains("waits in"), "\(first.output)")
        // sync's first attempt is stored but its answer lost; it is killed while waiting for the second's answer.
        let sync = Process()
        sync.executableURL = Executable.buildFolder.appendingPathComponent("hearclear")
        sync.arguments = ["sync"]
        sync.environment = Executable.environment(adding: environment)
        sync.standardOutput = FileHandle.nullDevice
        sync.standardError = FileHandle.nullDevice
        try sync.run()
        await onAThreadOfItsOwn { proxy.waitUntilHolding() }
        kill(sync.processIdentifier, SIGKILL)
        await onAThreadOfItsOwn { sync.waitUntilExit() }
        proxy.release()
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox.path).filter { $0.hasSuffix(".json") }.count == 1)
        let again = try await Executable.run("hearclear", ["sync"], environment: environment)
        #expect(again.output.contains("1 uploaded"), "\(again.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox.path).isEmpty)
        await server.stop()
        #expect(try await database.query("SELECT COUNT(*) FROM checkin") == "1")
        #expect(try await database.query(ServerDatabase.storedSeconds) == "20")
    }
}

/// SIGKILL at moments chosen by a seeded generator, while checking in from a file and while syncing:
/// the outbox never holds a corrupt entry and nothing is stored twice.
@Suite struct RandomKillTests {
    let folder: URL
    let environment: [String: String]

    init() throws {
        folder = try temporaryFolder()
        environment = clientEnvironment(in: folder)
    }

    var outbox: URL { folder.appendingPathComponent("data/hearclear/outbox") }

    /// Starts the client, lets it run for `delay`, then kills it (the delay is the moment under test).
    func killed(after delay: Duration, _ arguments: [String]) async throws {
        let process = Process()
        process.executableURL = Executable.buildFolder.appendingPathComponent("hearclear")
        process.arguments = arguments
        process.environment = Executable.environment(adding: environment)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try await Task.sleep(for: delay)
        kill(process.processIdentifier, SIGKILL)
        await onAThreadOfItsOwn { process.waitUntilExit() }
    }

    /// Every entry left in the outbox is a whole check-in or a journal that recovers. A kill in the
    /// middle of sealing leaves a hidden temporary file, which no reader takes for a check-in and
    /// the next run removes (the final sync must leave the outbox empty).
    func expectOutboxReadable() throws {
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: outbox.path)) ?? []).filter { !($0.hasPrefix(".") && $0.hasSuffix(".tmp")) }
        for entry in entries where entry.hasSuffix(".json") {
            let data = try Data(contentsOf: outbox.appendingPathComponent(entry))
            #expect((try? JSONDecoder().decode(CheckInV2.self, from: data)) != nil, "\(entry) is corrupt")
        }
        #expect(entries.allSatisfy { $0.hasSuffix(".json") || $0.hasSuffix(".recording") }, "\(entries)")
    }

    @Test(arguments: StoreKind.allCases, [11, 23, 37] as [UInt64])
    func killedAtRandomMomentsTheClientLosesNothingAndDuplicatesNothing(store: StoreKind, seed: UInt64) async throws {
        var state = seed
        func nextDelay() -> Duration {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return .milliseconds(Int64(state >> 33) % 400)
        }
        let database = try await ServerDatabase(store, named: "kill", in: folder)
        let server = try await ServerProcess(database: database)
        #expect(try await Executable.run("hearclear", ["register", "--server", server.url.absoluteString], environment: environment).status == 0)
        #expect(try await Executable.run("hearclear", ["venue", "add", "pub", "--name", "Pub", "--lat", "0", "--lng", "0", "--timezone", "UTC"], environment: environment).status == 0)
        let recording = try temporaryFile("pub.wav", WAVWriter.data(Signal.sine(frequency: 1000, dBFS: -37, seconds: 40, sampleRate: 48_000), sampleRate: 48_000, format: .int16))

        // During a check-in…
        try await killed(after: nextDelay(), ["checkin", "pub", "--file", recording])
        try expectOutboxReadable()
        // …and during the sync that follows.
        try await killed(after: nextDelay(), ["sync"])
        try expectOutboxReadable()
        let final = try await Executable.run("hearclear", ["sync"], environment: environment)
        #expect(final.status == 0, "\(final.output)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: outbox.path)) ?? []).isEmpty)
        await server.stop()
        let stored = try await database.query("SELECT COUNT(*), COALESCE(SUM(samples), 0) FROM checkin").split(separator: "|")
        #expect(["0", "1"].contains(stored[0]), "stored \(stored)")  // killed before the first interval: nothing to send
        #expect((Int(stored[1]) ?? -1) <= 40)
        #expect(try await database.query(ServerDatabase.storedSeconds) == String(stored[1]))
    }
}
