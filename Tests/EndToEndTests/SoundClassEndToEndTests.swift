import Foundation
import LoopbackHTTP
import Testing

/// The shipped speech and music model through `hearclear analyze`, on recordings made at test time
/// from Debian packages: sources held out of its training (festival's voice, drascula's music,
/// the one 10 dB over the other, the voice over steady noise), and constructed signals (a pure tone, hums, espeak-ng's speech, a chord progression sox plays). A
/// broken model or a changed feature fails here.
@Suite struct SoundClassEndToEndTests {
    let folder: URL

    init() throws {
        folder = try temporaryFolder()
    }

    func sox(_ arguments: [String]) async throws {
        // -R: the noise bed from a fixed seed, so every run judges the same samples.
        let result = try await Executable.run(program: URL(fileURLWithPath: "/usr/bin/sox"), ["-R"] + arguments)
        #expect(result.status == 0, "sox \(arguments): \(result.errors)")
    }

    /// `raw` at 48 kHz mono, −20 dBFS, over pink noise at −60 dBFS (synthetic speech has digital
    /// silence between words, which no room has), as the training corpus is made.
    func recording(_ raw: String, named name: String) async throws -> String {
        let level = folder.appendingPathComponent("\(name)-level.wav").path, bed = folder.appendingPathComponent("\(name)-bed.wav").path
        let out = folder.appendingPathComponent("\(name).wav").path
        try await sox([raw, "-r", "48000", "-c", "1", level, "norm", "-20"])
        let seconds = try await Executable.run(program: URL(fileURLWithPath: "/usr/bin/soxi"), ["-D", level]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        try await sox(["-n", "-r", "48000", "-c", "1", bed, "synth", seconds, "pinknoise", "vol", "0.001"])
        try await sox(["-m", level, bed, out])
        return out
    }

    func shares(_ path: String) async throws -> (speech: Double, music: Double) {
        let result = try await Executable.run("hearclear", ["analyze", path, "--json"])
        #expect(result.status == 0, "\(result.errors)")
        let document = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        // Which model classified the seconds: the one shipped, version 4 or later.
        #expect((document?["classes_model"] as? Int ?? 0) >= 4, "\(document?["classes_model"] ?? "nothing")")
        return (document?["speech_share"] as? Double ?? -1, document?["music_share"] as? Double ?? -1)
    }

    func espeak(_ text: String, voice: String, named name: String) async throws -> String {
        let raw = folder.appendingPathComponent("\(name).raw.wav").path
        #expect(try await Executable.run(program: URL(fileURLWithPath: "/usr/bin/espeak-ng"), ["-v", voice, "-w", raw, text]).status == 0)
        return try await recording(raw, named: name)
    }

    static let text = "Shall we meet at the corner cafe on Friday evening? I heard the new place by the river gets very busy after eight, so let us book a table early and talk before the band starts."

    /// The text read twice by festival's voice, held out of the model's training, unprocessed.
    func festival(named name: String) async throws -> String {
        let raw = folder.appendingPathComponent("\(name).raw.wav").path
        let festival = Process()
        festival.executableURL = URL(fileURLWithPath: "/usr/bin/text2wave")
        festival.arguments = ["-o", raw]
        let input = Pipe()
        festival.standardInput = input
        festival.standardError = FileHandle.nullDevice
        try festival.run()
        input.fileHandleForWriting.write(Data((Self.text + " " + Self.text).utf8))
        try input.fileHandleForWriting.close()
        await onAThreadOfItsOwn { festival.waitUntilExit() }
        return raw
    }

    @Test func heldOutSpeechAndMusicAreRecognised() async throws {
        let raw = try await festival(named: "festival")
        let speech = try await shares(try await recording(raw, named: "festival"))
        #expect(speech.speech >= 0.7 && speech.music <= 0.3, "festival: \(speech)")

        let excerpt = folder.appendingPathComponent("drascula.raw.wav").path
        try await sox(["/usr/share/scummvm/drascula/audio/track5.ogg", "-c", "1", excerpt, "trim", "10", "20"])
        let music = try await shares(try await recording(excerpt, named: "drascula"))
        #expect(music.music >= 0.8 && music.speech <= 0.2, "drascula: \(music)")

        // The voice 10 dB over the music, as people talk over a bar's: the voice found in most seconds
        // (how often the music under it is found: docs/sound-classes.md, "speech over music +10 dB").
        let voice = folder.appendingPathComponent("voice-20.wav").path, song = folder.appendingPathComponent("song-30.wav").path
        try await sox([raw, "-r", "48000", "-c", "1", voice, "norm", "-20", "trim", "0", "20"])
        try await sox([excerpt, "-r", "48000", "-c", "1", song, "norm", "-30"])
        let mixed = folder.appendingPathComponent("over-music.raw.wav").path
        try await sox(["-m", voice, song, mixed, "trim", "0", "20"])
        let both = try await shares(try await recording(mixed, named: "over-music"))
        #expect(both.speech > 0.5, "festival 10 dB over drascula: \(both)")
    }

    /// A recorded human voice held out of training: an Italian woman's telephone prompts
    /// (asterisk-prompt-it-menardi-wav, 8 kHz, of the fourth held-out set) one after another are
    /// speech, not music. The same package's recording of shrieking monkeys is neither, but versions
    /// 22 and 28 read it as music (docs/sound-classes.md, "A fourth held-out set"): a known issue, so that
    /// a model that hears it right fails here until the doc says so too.
    @Test func aRecordedVoiceIsSpeechAndMonkeysAreNotMusic() async throws {
        let prompts = "/usr/share/asterisk/sounds/it_IT_f_Menardi"
        let raw = folder.appendingPathComponent("menardi.raw.wav").path
        try await sox(
            ["tt-allbusy", "tt-somethingwrong", "vm-advopts", "vm-calldiffnum", "vm-dialout", "transfer", "conf-getpin"].map { "\(prompts)/\($0).wav" }
                + [raw])
        let voice = try await shares(try await recording(raw, named: "menardi"))
        #expect(voice.speech >= 0.7 && voice.music <= 0.3, "asterisk-prompt-it-menardi: \(voice)")

        let monkeys = try await shares(try await recording("\(prompts)/tt-monkeys.wav", named: "monkeys"))
        #expect(monkeys.speech <= 0.2, "monkeys: \(monkeys)")
        withKnownIssue("versions 22 and 28 read Asterisk's shrieking monkeys as music") {
            #expect(monkeys.music <= 0.2, "monkeys: \(monkeys)")
        }
    }

    /// A voice over steady noise, as guests talk over a fan (docs/sound-classes.md, "A voice over
    /// steady noise"; version 7 read it as music): festival's voice 9 dB above pink noise by their
    /// Leq is speech, and at 3 dB above not music either. At 3 dB it is found as speech in too few
    /// seconds, recorded as a known issue, so that a model that hears it fails here until the doc
    /// says so too.
    @Test func aVoiceOverSteadyNoiseIsNotMusic() async throws {
        let voice = folder.appendingPathComponent("noisy-voice.wav").path
        try await sox([try await festival(named: "noisy-festival"), "-r", "48000", "-c", "1", voice, "norm", "-20", "trim", "0", "20"])
        // The voice's Leq is −42.3 dBFS: pink noise at −51.3 and −45.3.
        for (volume, above) in [("0.02", 9), ("0.04", 3)] {
            let noise = folder.appendingPathComponent("noise-\(above).wav").path
            try await sox(["-n", "-r", "48000", "-c", "1", noise, "synth", "20", "pinknoise", "vol", volume])
            let mixed = folder.appendingPathComponent("voice-over-noise-\(above).raw.wav").path
            try await sox(["-m", "-v", "1", voice, "-v", "1", noise, mixed])
            let heard = try await shares(try await recording(mixed, named: "voice-over-noise-\(above)"))
            #expect(heard.music <= 0.2, "festival \(above) dB over pink noise: \(heard)")
            if above == 9 {
                #expect(heard.speech >= 0.7, "festival \(above) dB over pink noise: \(heard)")
            } else {
                withKnownIssue("versions 22 and 28 miss a voice only 3 dB over steady noise") {
                    #expect(heard.speech >= 0.5, "festival \(above) dB over pink noise: \(heard)")
                }
            }
        }
    }

    /// A hum, as a fridge, a transformer or a fan makes one in a quiet room, is neither speech nor
    /// music: the network alone (versions 19, 21 and 22) reads most mains hums as music, and only its first three
    /// seconds, before the rule for a sound that does not change can tell, keep the network's
    /// judgement (docs/sound-classes.md, "A sound that does not change"). Three kinds: the mains'
    /// 50 Hz with two harmonics, 60 Hz with one, and 100 Hz with odd ones, each over room noise
    /// about 17 dB under it, 40 s long.
    @Test(arguments: [(50, [1, 2, 3]), (60, [1, 2]), (100, [1, 3, 5])])
    func aHumIsNeitherSpeechNorMusic(fundamental: Int, harmonics: [Int]) async throws {
        let name = "hum-\(fundamental)"
        let hum = folder.appendingPathComponent("\(name)-partials.wav").path, room = folder.appendingPathComponent("\(name)-room.wav").path
        try await sox(["-r", "48000", "-c", "\(harmonics.count)", "-n", hum, "synth", "40"] + harmonics.flatMap { ["sine", "\(fundamental * $0)"] } + ["remix", "-", "norm", "-30"])
        try await sox(["-n", "-r", "48000", "-c", "1", room, "synth", "40", "pinknoise", "vol", "0.01"])
        let raw = folder.appendingPathComponent("\(name).raw.wav").path
        try await sox(["-m", hum, room, raw])
        let heard = try await shares(try await recording(raw, named: name))
        #expect(heard.speech <= 0.2 && heard.music <= 0.2, "\(fundamental) Hz and harmonics \(harmonics) over a quiet room: \(heard)")
    }

    /// The tone over the recording's floor, as a microphone hears one: a held partial alone is not
    /// music (a tone with digital silence under it is: docs/sound-classes.md).
    @Test func aPureToneIsNeitherEspeakIsSpeechAndAChordProgressionIsMusic() async throws {
        let tone = folder.appendingPathComponent("tone.raw.wav").path
        try await sox(["-n", "-r", "48000", "-c", "1", tone, "synth", "10", "sine", "800"])
        let heard = try await shares(try await recording(tone, named: "tone"))
        #expect(heard.speech == 0 && heard.music == 0, "tone: \(heard)")

        let speech = try await shares(try await espeak(Self.text, voice: "en-us", named: "espeak"))
        #expect(speech.speech >= 0.7, "espeak-ng: \(speech)")

        var parts: [String] = []
        for (index, root) in [174.6, 220.0, 130.8, 196.0, 174.6, 220.0, 130.8, 196.0].enumerated() {
            let part = folder.appendingPathComponent("chord-\(index).wav").path
            try await sox(["-n", "-r", "48000", "-c", "1", part, "synth", "2", "pluck", "\(root)", "pluck", "\(root * 1.26)", "pluck", "\(root * 1.5)", "fade", "0.02", "2", "0.3"])
            parts.append(part)
        }
        let chords = folder.appendingPathComponent("chords.raw.wav").path
        try await sox(parts + [chords])
        let music = try await shares(try await recording(chords, named: "chords"))
        #expect(music.music >= 0.6, "chords: \(music)")
    }

    /// Music, 25 s of room noise, music: two sessions; with 12 s of noise between, one; with 40 s of
    /// digital silence between, two (a reported case: silence is a gap like any other).
    @Test func detectMergesMomentsIntoSessionsWithFriendlyTimes() async throws {
        let music = folder.appendingPathComponent("music.raw.wav").path
        try await sox(["/usr/share/planetblupi/music/music003.ogg", "-r", "48000", "-c", "1", music, "trim", "20", "10", "norm", "-20"])
        for (gap, sessions) in [(25, 2), (12, 1), (40, 2)] {
            let noise = folder.appendingPathComponent("noise-\(gap).wav").path
            let filler = gap == 40 ? ["trim", "0", "\(gap)"] : ["synth", "\(gap)", "pinknoise", "vol", "0.01"]
            try await sox(["-n", "-r", "48000", "-c", "1", noise] + filler)
            let joined = folder.appendingPathComponent("joined-\(gap).raw.wav").path
            try await sox([music, noise, music, joined])
            let path = try await recording(joined, named: "joined-\(gap)")
            let listed = try await Executable.run("hearclear", ["analyze", path, "--detect", "music"])
            #expect(listed.status == 0 && listed.output.contains(": \(sessions) music session"), "\(listed.output) \(listed.errors)")
            if gap == 25 {
                // (The noise's first second can still read as music: the change into it is a burst of flux.)
                #expect(listed.output.contains("  0 s – 1"), "\(listed.output)")
                let clock = try await Executable.run("hearclear", ["analyze", path, "--detect", "music", "--started-at", "2026-11-20T21:15:00+11:00"])
                #expect(clock.output.contains("  21:15:00 – 21:15:1") && clock.output.contains("  21:15:35 – 21:15:45 (10 s), mean confidence "), "\(clock.output)")
                // Written without its offset, as people write one: the computer's own time zone.
                let local = try await Executable.run(
                    "hearclear", ["analyze", path, "--detect", "music", "--json", "--started-at", "2026-11-20 21:15"], environment: ["TZ": "Australia/Sydney"])
                let sessions = (try? JSONSerialization.jsonObject(with: Data(local.output.utf8)) as? [String: Any])?["sessions"] as? [[String: Any]]
                #expect(sessions?.first?["started_at"] as? String == "2026-11-20T10:15:00Z", "\(local.output)\(local.errors)")
                let json = try JSONSerialization.jsonObject(with: Data(try await Executable.run("hearclear", ["analyze", path, "--detect", "music", "--json"]).output.utf8)) as? [String: Any]
                #expect((json?["sessions"] as? [[String: Any]])?.map { $0["start"] as? Double } == [0, 35])
                // The music's loud moments are loud events, tagged with what they held.
                let analysed = try JSONSerialization.jsonObject(with: Data(try await Executable.run("hearclear", ["analyze", path, "--json", "--calibration", "110"]).output.utf8)) as? [String: Any]
                #expect((analysed?["events"] as? [[String: Any]])?.map { $0["class"] as? String } == ["music", "music"], "\(analysed?["events"] ?? "")")
            }
        }
        // A recording that ends part-way through an interval: what was detected ends with it, not
        // with the interval (a reported case: 1.04 s of music was "0 s – 2 s").
        let short = folder.appendingPathComponent("short.raw.wav").path
        try await sox([music, short, "trim", "0", "4.5"])
        let shortPath = try await recording(short, named: "short")
        let ending = try JSONSerialization.jsonObject(with: Data(try await Executable.run("hearclear", ["analyze", shortPath, "--detect", "music", "--json"]).output.utf8)) as? [String: Any]
        #expect((ending?["sessions"] as? [[String: Any]])?.map { $0["end"] as? Double } == [4.5], "\(ending ?? [:])")
        let loud = try JSONSerialization.jsonObject(with: Data(try await Executable.run("hearclear", ["analyze", shortPath, "--json", "--calibration", "110"]).output.utf8)) as? [String: Any]
        let events = loud?["events"] as? [[String: Any]] ?? []
        #expect(!events.isEmpty && events.allSatisfy { ($0["t"] as? Double ?? 0) + ($0["duration_s"] as? Double ?? .infinity) <= 4.5 }, "\(events)")

        let wrong = try await Executable.run("hearclear", ["analyze", music, "--detect", "music", "--threshold", "2"])
        #expect(wrong.status != 0 && wrong.errors.contains("--threshold for speech and music is a probability from 0 to 1"), "\(wrong.errors)")
        let unclassified = try await Executable.run("hearclear", ["analyze", music, "--detect", "music", "--no-classes"])
        #expect(unclassified.status != 0 && unclassified.errors.contains("--no-classes leaves out what --features and --detect speech or music read"))
    }

    /// `--no-classes`: the same levels, without speech and music.
    @Test func noClassesGivesTheLevelsAlone() async throws {
        let tone = folder.appendingPathComponent("plain.raw.wav").path
        try await sox(["-n", "-r", "48000", "-c", "1", tone, "synth", "3", "sine", "800"])
        let path = try await recording(tone, named: "plain")
        func intervals(_ extra: [String]) async throws -> [[String: Any]] {
            let result = try await Executable.run("hearclear", ["analyze", path, "--json"] + extra)
            #expect(result.status == 0, "\(result.errors)")
            return (try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])?["samples"] as? [[String: Any]] ?? []
        }
        let classified = try await intervals([]), alone = try await intervals(["--no-classes"])
        #expect(classified.count == 3 && classified.allSatisfy { $0["speech"] is Double && $0["music"] is Double })
        #expect(alone.count == 3 && alone.allSatisfy { $0["speech"] is NSNull && $0["music"] is NSNull })
        #expect(alone.map { $0["avg"] as? Double } == classified.map { $0["avg"] as? Double })
    }
}
