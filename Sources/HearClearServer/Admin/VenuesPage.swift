import Foundation
import HearClearAnalysis
import HearClearCore

enum VenuesPage {
    static let perPage = 25

    struct Option {
        let value: String
        let text: String
        let selected: Bool
    }

    struct Model {
        let chrome: PageChrome
        let search: String
        let loudest: Bool
        let window: String
        let days: [Option]
        let fromHours: [Option]
        let toHours: [Option]
        let venues: [VenueRow]
        /// How many venues the listing holds, in words.
        let total: String
        let page: Int
        let pages: Int
        let previousLink: String?
        let nextLink: String?
    }

    /// What the page lists: venues by name or id, or the loudest over some local hours.
    enum Listing {
        case search(String?)
        case loudest(LocalWindow)
    }

    static func model(store: any AdminStore, listing: Listing, page: Int, scale: LabelScale, session: AdminSession) async throws -> Model {
        let rows: [VenueRow]
        let total: Int
        var query: [URLQueryItem] = []
        var window = LocalWindow(weekday: 4, hours: 20...23)  // the form's default: Friday night
        var search: String?
        switch listing {
        case .search(let text):
            search = text
            let found = try await store.venues(search: text, offset: (page - 1) * perPage, limit: perPage)
            rows = found.venues.map { VenueRow($0) }
            total = found.total
            query = text.map { [URLQueryItem(name: "q", value: $0)] } ?? []
        case .loudest(let chosen):
            window = chosen
            let found = try await store.loudestVenues(in: chosen, offset: (page - 1) * perPage, limit: perPage)
            rows = found.venues.map { VenueRow($0.venue, level: $0.levelDB, scale: scale) }
            total = found.total
            query = [
                URLQueryItem(name: "day", value: chosen.weekday.map { Weekday(index: $0).rawValue } ?? "any"),
                URLQueryItem(name: "from", value: "\(chosen.hours.lowerBound)"), URLQueryItem(name: "to", value: "\(chosen.hours.upperBound)"),
            ]
        }
        let pages = max(1, (total + perPage - 1) / perPage)
        func link(_ page: Int) -> String {
            var components = URLComponents()
            components.path = "/admin/venues"
            components.queryItems = query + [URLQueryItem(name: "page", value: "\(page)")]
            return components.string ?? "/admin/venues"
        }
        let loudest: Bool
        if case .loudest = listing { loudest = true } else { loudest = false }
        let dayName = window.weekday.map { Weekday(index: $0).rawValue.capitalized } ?? "Every day"
        return Model(
            chrome: PageChrome(title: "Venues", csrf: session.csrfToken, section: "venues"),
            search: search ?? "", loudest: loudest,
            window: "\(dayName), \(String(format: "%02d", window.hours.lowerBound)):00 to \(String(format: "%02d", window.hours.upperBound + 1)):00 local time",
            days: [Option(value: "any", text: "Every day", selected: window.weekday == nil)]
                + Weekday.allCases.map { Option(value: $0.rawValue, text: $0.rawValue.capitalized, selected: window.weekday == $0.index) },
            fromHours: (0..<24).map { Option(value: "\($0)", text: String(format: "%02d:00", $0), selected: $0 == window.hours.lowerBound) },
            toHours: (0..<24).map { Option(value: "\($0)", text: String(format: "%02d:59", $0), selected: $0 == window.hours.upperBound) },
            venues: rows, total: total.counted("venue"), page: page, pages: pages,
            previousLink: page > 1 ? link(page - 1) : nil, nextLink: page < pages ? link(page + 1) : nil)
    }
}
