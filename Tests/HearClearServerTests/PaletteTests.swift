import Foundation
import HearClearCore
import Testing

@testable import HearClearServer

/// Every colour pair of the pages reads at WCAG 2.1 AA: the palette of labels and efforts, and each
/// rule of public.css that sets a text colour on a background, with the page's own colours around.
@Suite struct PaletteTests {
    static let stylesheet = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Public/public.css")

    @Test func theContrastFormulaIsWCAGs() {
        #expect(abs(Palette.contrast("#ffffff", "#000000") - 21) < 1e-9)
        #expect(abs(Palette.contrast("#777777", "#ffffff") - 4.48) < 0.01)
        #expect(abs(Palette.contrast("#ffffff", "#ffffff") - 1) < 1e-9)
    }

    /// Was: white digits on the yellow "moderate" cells of the admin heatmap (1.9:1).
    @Test func everyToneReadsAtAA() {
        for swatch in Palette.ramp {
            #expect(Palette.contrast(swatch.background, swatch.text) >= 4.5, "\(swatch)")
        }
        #expect(Palette.contrast("#e0b21a", "#ffffff") < 4.5)
    }

    /// The rules of public.css: custom properties resolved, each rule with both a colour and a
    /// background checked, and the text colours against the backgrounds they are shown on.
    @Test func thePublicStylesheetsColoursReadAtAA() throws {
        let css = try String(contentsOf: Self.stylesheet, encoding: .utf8)
        var variables: [String: String] = [:]
        for match in css.matches(of: /--([a-z-]+):\s*(#[0-9a-fA-F]{6})/) { variables[String(match.1)] = String(match.2).lowercased() }
        func resolve(_ value: Substring) -> String? {
            let text = value.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("var(--") { return variables[String(text.dropFirst(6).dropLast())] }
            return text.hasPrefix("#") && text.count == 7 ? text.lowercased() : nil
        }
        var pairs: [(rule: String, text: String, background: String)] = []
        for rule in css.matches(of: /([^{}]+)\{([^{}]*)\}/) {
            let body = String(rule.2)
            guard let color = body.firstMatch(of: /(?:^|[;\s])color:\s*([^;]+);/).flatMap({ resolve($0.1) }),
                let background = body.firstMatch(of: /background:\s*([^;]+);/).flatMap({ resolve($0.1) })
            else { continue }
            pairs.append((rule.1.trimmingCharacters(in: .whitespacesAndNewlines), color, background))
        }
        #expect(pairs.count >= 8, "\(pairs.map(\.rule))")
        // The page's text on its backgrounds: body text and muted text on the page and on cards,
        // links, the problem line, and the hour labels of the grids.
        let ink = try #require(variables["ink"]), muted = try #require(variables["muted"]), accent = try #require(variables["accent"])
        let paper = try #require(variables["paper"]), wash = try #require(variables["wash"]), problem = try #require(variables["problem"])
        for text in [ink, muted, accent, problem] {
            for background in [paper, wash] { pairs.append(("text \(text) on \(background)", text, background)) }
        }
        for pair in pairs {
            #expect(Palette.contrast(pair.text, pair.background) >= 4.5, "\(pair.rule): \(pair.text) on \(pair.background) is \(Palette.contrast(pair.text, pair.background))")
        }
        // The tones are the palette's.
        for (index, swatch) in Palette.ramp.enumerated() {
            let rule = try #require(css.firstMatch(of: try Regex(#"\.tone-\#(index) \{ background: (#[0-9a-f]{6}); color: (#[0-9a-f]{6}); \}"#)))
            #expect(rule.output[1].substring.map(String.init) == swatch.background && rule.output[2].substring.map(String.init) == swatch.text)
        }
    }
}
