import Foundation
import HearClearCore
import Hummingbird

/// `GET /api/v2/calibration?model=…`: the calibration the server applies to a model's check-ins
/// that bring none (`MeterCalibration`), for the measuring page to show the levels it will store.
/// The offsets are the operators' (the admin calibration page); none is secret.
struct CalibrationController {
    let repository: any Repository
    let defaultCalibrationDB: Double

    func addRoutes(to group: RouterGroup<APIRequestContext>) {
        group.get { request, _ in try await calibration(request) }
            .methodNotAllowed("", allowing: [.get])
    }

    func calibration(_ request: Request) async throws -> Response {
        let parameters = try request.formQuery(allowing: ["model"])
        guard let text = parameters["model"] else { throw APIError.badRequest("model is required: the device model, like browser: Chrome on Android") }
        let model = try Validation.text(text, field: "model")
        // The model's row alone: `AdminStore.calibrations()` also lists every device's model.
        let offset = try await repository.calibrationOffset(model: model)
        let answer = MeterCalibration(model: model, calibrationDB: offset ?? defaultCalibrationDB, source: offset == nil ? .default : .model)
        return Response(
            // Five minutes: an operator's new offset reaches the pages soon, and a page asks once per measurement.
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "public, max-age=300"],
            body: .init(byteBuffer: ByteBuffer(bytes: try APIResponseEncoder.jsonEncoder().encode(answer))))
    }
}
