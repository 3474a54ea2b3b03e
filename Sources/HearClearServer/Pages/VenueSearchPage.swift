import Foundation
import HearClearAnalysis
import HearClearCore

/// The public search page (`/venues`): venues by name, or near coordinates typed or taken from the
/// browser's location. Built from one search of the store; rendered by `public_search.mustache`.
struct VenueSearchPage {
    struct Result {
        let id: String
        let name: String
        let place: String
        let level: String
        let tone: String
    }

    /// The most venues a search lists.
    static let shown = 20

    let title = "Find a venue"
    let q: String
    let near: String
    let searched: Bool
    let results: [Result]
    /// "More venues match than these 20": the search found more than it lists.
    let more: String?
    let problem: String?
    /// Whether the venues found open with their answers for a listener with hearing loss.
    let hearingLoss: Bool

    init(q: String, near: String, found: [VenueSummary], problem: String?, scale: LabelScale, hearingLoss: Bool) {
        self.q = q
        self.near = near
        // A search that could not be made found nothing to say "no venue found" of.
        searched = problem == nil && (!q.isEmpty || !near.isEmpty)
        self.problem = problem
        self.hearingLoss = hearingLoss
        more = found.count > Self.shown ? "More venues match than these \(Self.shown): add a word of the name, or a place nearby." : nil
        results = found.prefix(Self.shown).map { summary in
            let level = summary.aggregate?.levelDB
            let distance = summary.distanceM.map { $0 >= 1000 ? String(format: "%.1f km away", $0 / 1000) : String(format: "%.0f m away", $0) }
            return Result(
                id: summary.id, name: summary.venue.name, place: [distance, summary.venue.timezone].compactMap { $0 }.joined(separator: " · "),
                level: level.map { "\(PublicVenuePage.level($0)), \(scale.label(for: $0))" } ?? "no measurements yet",
                tone: Palette.className(ofTone: level.map { Palette.tone(forLabel: scale.label(for: $0), scale: scale) }))
        }
    }
}
