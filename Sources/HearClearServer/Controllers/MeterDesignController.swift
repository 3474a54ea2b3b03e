import Foundation
import HearClearCore
import Hummingbird
import LevelMeter
import NIOPosix
import Synchronization

/// `GET /api/v2/meter-design?rate=…`: the filters and rules of `LevelMeter` at a sample rate, and
/// how it finds speech and music there, for the browser's meter (Public/meter-worklet.js,
/// Public/sound-classes.js), which runs them and designs nothing itself.
///
/// Only the rates audio hardware runs at are designed: each new rate costs tens of milliseconds
/// of fitting, and a client must not make the server design (and keep) one per integer.
struct MeterDesignController {
    static let rates: [Int] = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 88200, 96000, 176_400, 192_000]

    /// What this server adds to dBFS for a device without a calibration of its own: the page shows
    /// levels with it until the server has answered.
    let defaultCalibrationDB: Double
    /// The speech and music model the browser's meter runs (`SoundClassesDesign`).
    let classifier: SoundClassifier
    /// The encoded answers made so far, by rate: a design never changes while the server runs.
    private let answers = Answers()

    func addRoutes(to group: RouterGroup<APIRequestContext>) {
        group.get { request, _ in try await design(request) }
            .methodNotAllowed("", allowing: [.get])
    }

    func design(_ request: Request) async throws -> Response {
        let parameters = try request.formQuery(allowing: ["rate"])
        let rates = Self.rates.map(String.init).joined(separator: ", ")
        guard let text = parameters["rate"] else { throw APIError.badRequest("rate is required: the sample rate in Hz, one of \(rates)") }
        guard let rate = Int(text), Self.rates.contains(rate) else {
            throw APIError.badRequest("rate must be a sample rate in Hz, one of \(rates); not \(text)")
        }
        let body = try await answers.answer(rate: rate) { [defaultCalibrationDB, classifier] in
            var document = LevelMeter(sampleRate: rate, classifier: classifier).designDocument
            document.defaultCalibrationDB = defaultCalibrationDB
            return try APIResponseEncoder.jsonEncoder().encode(document)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "public, max-age=86400"],
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    private final class Answers: Sendable {
        private let made = Mutex<[Int: Data]>([:])

        /// A design is made on NIO's thread pool: its fit takes tens of milliseconds (seconds in a
        /// debug build), which on the request's task would hold one of the few threads every other
        /// request runs on.
        func answer(rate: Int, make: @escaping @Sendable () throws -> Data) async throws -> Data {
            if let known = made.withLock({ $0[rate] }) { return known }
            let body = try await NIOThreadPool.singleton.runIfActive(make)
            made.withLock { $0[rate] = body }
            return body
        }
    }
}
