import Foundation
import HearClearAnalysis
import HearClearCore
import Hummingbird
import HummingbirdTesting
import LevelMeter
import TestCluster
import Testing

@testable import HearClearServer

/// The browser's meter as the router serves it: the filters it runs are LevelMeter's own, at the
/// rates audio hardware runs at, and the measuring page may use the microphone and this server,
/// nothing else. BrowserMeasureTests measures through it in Chromium.
@Suite struct MeasurePageTests {
    @Test func theMeterDesignIsTheSwiftMetersOwn() async throws {
        try await withApp { client, _ in
            for rate in [44100, 48000] {
                let response = try await client.execute(uri: "/api/v2/meter-design?rate=\(rate)", method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "public, max-age=86400")
                let design = try decode(MeterDesignDocument.self, response)
                // (The server made the design first: the meter here finds it made.)
                #expect(design == LevelMeter(sampleRate: rate, classifier: .shipped).designDocument)
                #expect(design.sampleRate == rate && design.samplesPerInterval == rate && design.samplesPerFastStep == (rate + 500) / 1000)
                #expect(design.a.count == 4 && design.c.count == 4 && design.a.allSatisfy { $0.count == 5 })
                #expect(design.bands?.count == 4 && design.bands?.allSatisfy { $0.count == 3 } == true)
                #expect(design.fastTimeConstantS == 0.125 && design.defaultCalibrationDB == Level.defaultCalibrationDB)
                // Speech and music: 32 ms frames of the audio decimated by 2, the shipped model.
                let classes = try #require(design.classes)
                #expect(classes.decimationFactor == 2 && classes.frameSize == (rate == 48000 ? 768 : 704) && classes.bands.count == 16)
                #expect(classes.model.version == SoundClassifier.shipped.version && classes.fewestFramesJudged == 4)
                #expect(classes.detected == SoundClasses.detected)
                // A hum holds neither once it has kept its spectrum for 4 s of one-second intervals.
                #expect(classes.unchangingIntervals == 4 && classes.unchangingRange == UnchangingSound.range)
                #expect(design.loudEvents == .init(thresholdDB: LoudEventDetector.defaultThresholdDB, mergeWindowS: LoudEventDetector.defaultMergeWindow))
                // What the page tells a person who might stop too soon: the too-short rule's number.
                #expect(design.fewestCountedIntervals == Analysis.minimumKeptSamples)
                // What the page calibrates against a sound level meter with: the CLI's limits.
                #expect(design.calibration == .standard)
                #expect(String(buffer: response.body).contains(#""calibration":{"loudest_peak_dbfs":-1,"measured_s":10,"#))
            }
            // Below the rate that holds the 4 kHz band, the levels only: no bands to run, said as null.
            let narrow = try await client.execute(uri: "/api/v2/meter-design?rate=8000", method: .get)
            #expect(String(buffer: narrow.body).contains(#""bands":null"#))
            #expect(try decode(MeterDesignDocument.self, narrow).bands == nil)
            // Nor speech and music, whose bands reach 7 kHz.
            #expect(String(buffer: narrow.body).contains(#""classes":null"#))
        }
    }

    /// Was: a browser whose microphone ran at 88.2 or 192 kHz (an audio interface; Chrome makes
    /// the page's audio at the microphone's rate) could not measure at all, its rate refused.
    @Test func everyRateAudioHardwareRunsAtIsDesigned() async throws {
        try await withApp { client, _ in
            for rate in [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 88200, 96000, 176_400, 192_000] {
                let response = try await client.execute(uri: "/api/v2/meter-design?rate=\(rate)", method: .get)
                #expect(response.status == .ok, "\(rate)")
                #expect(try decode(MeterDesignDocument.self, response) == LevelMeter(sampleRate: rate, classifier: .shipped).designDocument, "\(rate)")
            }
        }
    }

    /// Was: the page showed levels with the server's default calibration while the server stored
    /// the check-in with the one its operators set for the browser's model, so the live level and
    /// the "Thank you: … dB(A)" that followed differed by the difference of the two.
    @Test(arguments: StoreKind.allCases) func aBrowsersCalibrationIsAnsweredForItsModel(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let model = "browser: Chrome on Android"
            let uri = "/api/v2/calibration?model=" + model.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let unset = try await client.execute(uri: uri, method: .get)
            #expect(unset.status == .ok && unset.headers[.cacheControl] == "public, max-age=300")
            #expect(try decode(MeterCalibration.self, unset) == MeterCalibration(model: model, calibrationDB: Level.defaultCalibrationDB, source: .default))
            try await database.repository.setCalibration(model: model, offsetDB: 104.5, at: Date())
            let set = try await client.execute(uri: uri, method: .get)
            #expect(try decode(MeterCalibration.self, set) == MeterCalibration(model: model, calibrationDB: 104.5, source: .model))
            for (query, words) in [("", "model is required"), ("?model=", "model must not be empty"), ("?model=x&rate=1", "unknown query parameter \"rate\"")] {
                let response = try await client.execute(uri: "/api/v2/calibration\(query)", method: .get)
                let message = try errorMessage(response)
                #expect(response.status == .badRequest || response.status == .unprocessableContent, "\(query)")
                #expect(message.contains(words), "\(query): \(message)")
            }
        }
    }

    @Test func aRateTheMeterIsNotDesignedForIsSaidInWords() async throws {
        try await withApp { client, _ in
            for (query, words) in [
                ("", "rate is required: the sample rate in Hz, one of 8000, 11025"),
                ("?rate=12345", "rate must be a sample rate in Hz, one of 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 88200, 96000, 176400, 192000; not 12345"),
                ("?rate=fast", "not fast"),
                ("?rate=48000&weighting=Z", "unknown query parameter \"weighting\": use rate"),
            ] {
                let response = try await client.execute(uri: "/api/v2/meter-design\(query)", method: .get)
                let message = try errorMessage(response)
                #expect(response.status == .badRequest, "\(query)")
                #expect(message.contains(words), "\(query): \(message)")
            }
        }
    }

    @Test func theServersDefaultCalibrationIsTheOneThePageShowsLevelsWith() async throws {
        var settings = ServerSettings()
        settings.defaultCalibrationDB = 104
        try await withApp(settings: settings) { client, _ in
            let design = try decode(MeterDesignDocument.self, try await client.execute(uri: "/api/v2/meter-design?rate=48000", method: .get))
            #expect(design.defaultCalibrationDB == 104)
        }
    }

    @Test func theMeasuringPageMayUseTheMicrophoneAndThisServerOnly() async throws {
        try await withApp { client, _ in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("corner", token: token, name: "Corner <Café>")
            try await client.execute(uri: "/venues/corner/measure", method: .get) { response in
                #expect(response.status == .ok)
                let policy = response.headers[.contentSecurityPolicy] ?? ""
                #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'; connect-src 'self'"), "\(policy)")
                #expect(response.headers[PageTemplates.permissionsPolicy]?.contains("microphone=(self)") == true)
                let html = String(buffer: response.body)
                #expect(html.contains("<title>Measure Corner &lt;Café&gt; · HearClear</title>"))
                // The one script is a file of this server's; the meter is shown only once it runs.
                #expect(html.components(separatedBy: "<script").count == 2 && html.contains(#"<script type="module" src="/public/measure.js"></script>"#))
                #expect(html.contains(#"data-venue="corner""#) && html.contains(#"data-seconds="300""#) && html.contains("hidden>"))
                #expect(html.contains("the page also judges how likely it held speech and music"))
                #expect(html.contains(#"<label for="calibration">"#))
                #expect(html.contains(#"<label for="reading">"#) && html.contains("the page listens for 10 seconds and sets the offset above"))
            }
            // The venue's page leads there; no other page may ask for the microphone.
            try await client.execute(uri: "/venues/corner", method: .get) { response in
                #expect(String(buffer: response.body).contains(#"<a href="/venues/corner/measure">Measure here</a>"#))
                #expect(response.headers[PageTemplates.permissionsPolicy]?.contains("microphone=()") == true)
                #expect(response.headers[.contentSecurityPolicy]?.contains("connect-src") == false)
            }
            let missing = try await client.execute(uri: "/venues/nowhere/measure", method: .get)
            #expect(missing.status == .notFound && String(buffer: missing.body).contains("There is no venue with the id “nowhere”"))
        }
    }

    @Test func theMetersScriptsAreServedAsScriptsThatCannotBeSniffedAsAnythingElse() async throws {
        try await withApp { client, _ in
            for file in ["measure.js", "outbox.js", "meter-worklet.js", "sound-classes.js", "measure-worker.js"] {
                try await client.execute(uri: "/public/\(file)", method: .get) { response in
                    #expect(response.status == .ok, "\(file)")
                    #expect(response.headers[.contentType]?.hasPrefix("text/javascript") == true, "\(file)")
                    #expect(response.headers[SecurityHeadersMiddleware.noSniff] == "nosniff")
                }
            }
        }
    }

    /// The service worker that keeps the measuring pages for use without a connection may answer
    /// for the pages under /venues/, though its script is under /public/; no other file says so.
    @Test func theMeasuringWorkerMayAnswerForTheVenuesPages() async throws {
        try await withApp { client, _ in
            let worker = try await client.execute(uri: "/public/measure-worker.js", method: .get)
            #expect(worker.status == .ok && worker.headers[SecurityHeadersMiddleware.serviceWorkerAllowed] == "/venues/")
            let again = try await client.execute(uri: "/public/measure-worker.js", method: .get, headers: [.ifNoneMatch: worker.headers[.eTag] ?? ""])
            #expect(again.status == .notModified && again.headers[SecurityHeadersMiddleware.serviceWorkerAllowed] == "/venues/")
            let other = try await client.execute(uri: "/public/measure.js", method: .get)
            #expect(other.headers[SecurityHeadersMiddleware.serviceWorkerAllowed] == nil)
        }
    }

    /// Was: the scripts were cached an hour, so for an hour after an upgrade a phone could run a
    /// new measure.js with an old outbox.js, or an old one against the new page (whose elements it
    /// no longer finds). Each load asks again, and an unchanged script costs a 304 without a body.
    @Test func aPhoneRunsTheScriptsOfTheServerItTalksTo() async throws {
        try await withApp { client, _ in
            for file in ["measure.js", "outbox.js", "meter-worklet.js", "sound-classes.js", "measure-worker.js"] {
                let first = try await client.execute(uri: "/public/\(file)", method: .get)
                #expect(first.headers[.cacheControl]?.contains("no-cache") == true, "\(file): \(first.headers[.cacheControl] ?? "none")")
                let tag = try #require(first.headers[.eTag], "\(file)")
                let again = try await client.execute(uri: "/public/\(file)", method: .get, headers: [.ifNoneMatch: tag])
                #expect(again.status == .notModified && again.body.readableBytes == 0, "\(file)")
            }
        }
    }
}
