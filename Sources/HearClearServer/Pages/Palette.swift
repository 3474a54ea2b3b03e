import Foundation
import HearClearCore

/// The colours of labels and efforts on every page (admin and public): each a background with the
/// text colour that reads on it at WCAG 2.1 AA (at least 4.5:1), checked in PaletteTests with
/// `contrast`. Green to red, spread over however many bands the scale has.
enum Palette {
    struct Swatch: Equatable {
        let background: String
        let text: String
    }

    static let ink = "#1d2327"
    static let ramp = [
        Swatch(background: "#2e7d32", text: "#ffffff"), Swatch(background: "#f2c230", text: ink),
        Swatch(background: "#e8711a", text: ink), Swatch(background: "#b3261e", text: "#ffffff"),
    ]

    /// The index in `ramp` of a label: the `tone-N` class of public.css (which holds the same colours).
    static func tone(forLabel label: String, scale: LabelScale) -> Int {
        let index = scale.bands.firstIndex { $0.label == label } ?? 0
        let count = scale.bands.count
        return count > 1 ? index * (ramp.count - 1) / (count - 1) : 0
    }

    static func swatch(forLabel label: String, scale: LabelScale) -> Swatch {
        ramp[tone(forLabel: label, scale: scale)]
    }

    /// Relaxed and normal voice green, raised yellow, loud orange, very loud and not possible red.
    static func tone(for effort: VocalEffort) -> Int {
        switch effort {
        case .relaxed, .normal: 0
        case .raised: 1
        case .loud: 2
        case .veryLoud, .notPossible: 3
        }
    }

    /// The class of public.css for a tone (`tone-N`), or for a cell without data.
    static func className(ofTone tone: Int?) -> String {
        tone.map { "tone-\($0)" } ?? "no-data"
    }

    /// WCAG 2.1's contrast ratio of two `#rrggbb` colours, 1 … 21.
    static func contrast(_ a: String, _ b: String) -> Double {
        let (x, y) = (luminance(a), luminance(b))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    /// WCAG 2.1's relative luminance of a `#rrggbb` colour.
    static func luminance(_ color: String) -> Double {
        let value = Int(color.dropFirst(), radix: 16) ?? 0
        let channels = [value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF].map { channel -> Double in
            let c = Double(channel) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]
    }
}
