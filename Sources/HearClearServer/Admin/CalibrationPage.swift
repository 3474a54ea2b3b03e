import Foundation
import HearClearAnalysis
import HearClearCore

enum CalibrationPage {
    struct Row {
        let model: String
        let offset: String
    }

    struct Model {
        let chrome: PageChrome
        let rows: [Row]
        let models: [String]
        let defaultCalibration: String
    }

    static func model(store: any AdminStore, settings: ServerSettings, session: AdminSession) async throws -> Model {
        let table = try await store.calibrations()
        return Model(
            chrome: PageChrome(title: "Calibration", csrf: session.csrfToken, section: "calibration"),
            rows: table.offsets.map { Row(model: $0.model, offset: Charts.format($0.offsetDB)) }, models: table.models,
            defaultCalibration: Charts.format(settings.defaultCalibrationDB))
    }
}
