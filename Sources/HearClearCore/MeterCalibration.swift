/// `GET /api/v2/calibration?model=…`: what the server adds to dBFS for the check-ins of a device
/// model that bring no calibration of their own — the offset its operators set for that model,
/// else its default — so that a meter can show the levels the server will store.
public struct MeterCalibration: Codable, Sendable, Equatable {
    public enum Source: String, Codable, Sendable {
        /// Set by the server's operators for this model.
        case model
        /// The server's `default_calibration_db`: no offset is set for this model.
        case `default`
    }

    public var model: String
    public var calibrationDB: Double
    public var source: Source

    public init(model: String, calibrationDB: Double, source: Source) {
        self.model = model
        self.calibrationDB = calibrationDB
        self.source = source
    }

    enum CodingKeys: String, CodingKey {
        case model, source
        case calibrationDB = "calibration_db"
    }
}
