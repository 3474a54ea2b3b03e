import Foundation
import HearClearAnalysis
import HearClearCore

enum CalibrationPage {
    struct Row {
        let model: String
        let offset: String
    }

    /// What one model's devices measured themselves, with the offset the operator has set for it.
    struct MeasuredRow {
        let model: String
        let devices: Int
        let median: String
        let range: String
        let set: String?
    }

    struct Model {
        let chrome: PageChrome
        let rows: [Row]
        let measured: [MeasuredRow]
        /// `CalibrationTable.window`, in digits grouped by thousands.
        let window: String
        let models: [String]
        let defaultCalibration: String
    }

    static func model(store: any AdminStore, settings: ServerSettings, session: AdminSession) async throws -> Model {
        let table = try await store.calibrations()
        let offsets = Dictionary(uniqueKeysWithValues: table.offsets.map { ($0.model, $0.offsetDB) })
        return Model(
            chrome: PageChrome(title: "Calibration", csrf: session.csrfToken, section: "calibration"),
            rows: table.offsets.map { Row(model: $0.model, offset: Charts.format($0.offsetDB)) },
            measured: table.measured.map { measured in
                MeasuredRow(
                    model: measured.model, devices: measured.devices, median: Charts.format(measured.medianDB),
                    range: measured.devices > 1 ? "\(Charts.format(measured.lowestDB))–\(Charts.format(measured.highestDB))" : "",
                    set: offsets[measured.model].map(Charts.format))
            },
            window: CalibrationTable.window.formatted(.number.locale(Locale(identifier: "en_US"))),
            models: table.models, defaultCalibration: Charts.format(settings.defaultCalibrationDB))
    }
}
