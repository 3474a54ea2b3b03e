import Foundation
import HearClearAnalysis
import HearClearCore

/// The public search page (`/venues`): venues by name, or near coordinates typed or taken from the
/// browser's location, nearest first — or, given a weekday and an hour, easiest conversation
/// first then, as `hearclear quiet` ranks them. Built from one search of the store; rendered by
/// `public_search.mustache`.
struct VenueSearchPage {
    struct Result {
        let id: String
        let name: String
        let place: String
        let level: String
        let tone: String
    }

    /// An option of the weekday or hour list, as the form shows it.
    struct Choice {
        let value: String
        let text: String
        let selected: Bool
    }

    /// What the store found: venues nearest first (or by name), or ranked at a weekday and hour
    /// (now, or one chosen).
    enum Found {
        case listed([VenueSummary])
        case ranked(VenueRanking, now: Bool)
    }

    /// When a search near a place ranks its venues, as the form's two lists choose it.
    enum When: Equatable {
        case at(WeekdayHour)
        /// This hour on the clock of the venue nearest the place: the venues near one another
        /// keep one time, which the server does not otherwise know for a place.
        case now

        /// What to do instead, for a half or unknown choice.
        struct Problem: Error {
            let words: String
        }

        /// `nil` when neither list was chosen.
        static func chosen(day: String, hour: String) throws(Problem) -> When? {
            switch (day, hour) {
            case ("", ""): return nil
            case ("now", ""): return .now
            case ("now", _): throw Problem(words: "“Now” is this hour already: leave the hour at “Any hour”, or choose a weekday.")
            case ("", _), (_, ""): throw Problem(words: "Choose a weekday and an hour, or neither.")
            default:
                guard let weekday = Weekday(rawValue: day), let hour = Int(hour), (0..<24).contains(hour) else {
                    throw Problem(words: "Choose a weekday and an hour from the lists.")
                }
                return .at(WeekdayHour(weekday: weekday, hour: hour))
            }
        }
    }

    /// The most venues a search lists.
    static let shown = 20

    let title = "Find a venue"
    let q: String
    let near: String
    let days: [Choice]
    let hours: [Choice]
    let searched: Bool
    /// "Venues found", or the weekday and hour they are ranked at.
    let heading: String
    let results: [Result]
    /// "More venues match than these 20": the search found more than it lists.
    let more: String?
    let problem: String?
    /// Whether the venues found open with their answers for a listener with hearing loss.
    let hearingLoss: Bool

    /// "Not listed? Add it": the add page, starting from what was searched.
    let addVenue: String

    static func addVenue(q: String, near: String) -> String {
        let given = [("name", q), ("near", near)].filter { !$0.1.isEmpty }
        guard !given.isEmpty else { return "/add-venue" }
        // Everything but unreserved characters encoded: URLComponents leaves `+`, which a form's
        // query reads as a space.
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return "/add-venue?" + given.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")" }.joined(separator: "&")
    }

    init(q: String, near: String, when: When?, found: Found, problem: String?, scale: LabelScale, hearingLoss: Bool) {
        self.q = q
        self.near = near
        addVenue = Self.addVenue(q: q, near: near)
        let at: WeekdayHour? = if case .at(let at) = when { at } else { nil }
        days = [Choice(value: "", text: "Any day", selected: when == nil), Choice(value: "now", text: "Now", selected: when == .now)]
            + Weekday.allCases.map { Choice(value: $0.rawValue, text: $0.rawValue.capitalized, selected: at?.weekday == $0) }
        hours = [Choice(value: "", text: "Any hour", selected: at == nil)]
            + (0..<24).map { Choice(value: "\($0)", text: PublicVenuePage.clock($0), selected: at?.hour == $0) }
        // A search that could not be made found nothing to say "no venue found" of.
        searched = problem == nil && (!q.isEmpty || !near.isEmpty)
        self.problem = problem
        self.hearingLoss = hearingLoss
        func distance(_ metres: Double) -> String {
            metres >= 1000 ? String(format: "%.1f km away", metres / 1000) : String(format: "%.0f m away", metres)
        }
        switch found {
        case .listed(let found):
            heading = "Venues found"
            more = found.count > Self.shown ? "More venues match than these \(Self.shown): add a word of the name, or a place nearby." : nil
            results = found.prefix(Self.shown).map { summary in
                let level = summary.aggregate?.levelDB
                return Result(
                    id: summary.id, name: summary.venue.name, place: [summary.distanceM.map(distance), summary.venue.timezone].compactMap { $0 }.joined(separator: " · "),
                    level: level.map { "\(PublicVenuePage.level($0)), \(scale.label(for: $0))" } ?? "no measurements yet",
                    tone: Palette.className(ofTone: level.map { Palette.tone(forLabel: scale.label(for: $0), scale: scale) }))
            }
        case .ranked(let ranking, let now):
            let hour = PublicVenuePage.clock(ranking.hour)
            heading = now
                ? "Easiest conversation now, \(ranking.weekday.rawValue.capitalized) at \(hour)"
                : "Easiest conversation on \(ranking.weekday.rawValue.capitalized)s at \(hour)"
            more = ranking.venues.count > Self.shown ? "More venues are near than these \(Self.shown), none easier to talk in." : nil
            results = ranking.venues.prefix(Self.shown).map { venue in
                let effort = venue.cell.effort(hearingLoss: hearingLoss)
                let level = venue.cell.cell.levelDB.map(PublicVenuePage.level) ?? ""
                return Result(
                    id: venue.id, name: venue.name, place: "\(distance(venue.distanceM)) · \(venue.timezone)",
                    level: effort.map { venue.cell.estimated ? "~\($0.words), about \(level) (estimated)" : "\($0.words), \(level)" } ?? "no data at that hour",
                    tone: Palette.className(ofTone: effort.map(Palette.tone(for:))))
            }
        }
    }
}
