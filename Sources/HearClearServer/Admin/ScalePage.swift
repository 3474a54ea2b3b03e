import Foundation
import HearClearAnalysis
import HearClearCore

enum ScalePage {
    struct Band {
        let label: String
        let range: String
        let color: String
    }

    struct Model {
        let chrome: PageChrome
        let unit: String
        let bands: [Band]
    }

    static func model(scale: LabelScale, session: AdminSession) -> Model {
        var lower: Double?
        let bands = scale.bands.map { band -> Band in
            defer { lower = band.maxDB }
            let range: String
            switch (lower, band.maxDB) {
            case (nil, let high?): range = "up to \(Int(high))"
            case (let low?, let high?): range = "\(Int(low) + 1) to \(Int(high))"
            case (let low?, nil): range = "\(Int(low) + 1) and above"
            case (nil, nil): range = "every level"
            }
            return Band(label: band.label, range: range, color: Palette.swatch(forLabel: band.label, scale: scale).background)
        }
        return Model(chrome: PageChrome(title: "Label scale", csrf: session.csrfToken, section: "scale"), unit: scale.unit, bands: bands)
    }
}
