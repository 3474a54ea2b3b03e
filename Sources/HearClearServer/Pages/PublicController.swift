import Foundation
import HearClearAnalysis
import HearClearCore
import Hummingbird

/// The public pages under `/venues`, and `/add-venue`: no login; no script needed but to measure
/// and to add a venue (the search's script only offers the browser's location). Errors are pages
/// too, not JSON.
struct PublicController {
    let repository: any Repository
    let settings: ServerSettings
    let templates: PageTemplates
    let estimates: VenueEstimates

    static let templateNames = ["public_search", "public_venue", "public_measure", "public_add_venue", "public_error"]
    /// How far around typed coordinates the search looks, metres.
    static let searchRadiusM = 5000.0

    func addRoutes(to parent: RouterGroup<APIRequestContext>) {
        let group = parent.add(middleware: HTMLErrorMiddleware(templates: templates))
        group.get { request, context in try await search(request, context: context) }
            .methodNotAllowed("", allowing: [.get])
        group.get(":venue_id") { request, context in try await venue(request, context: context) }
            .methodNotAllowed(":venue_id", allowing: [.get])
        group.get(":venue_id/measure") { request, context in try await measure(request, context: context) }
            .methodNotAllowed(":venue_id/measure", allowing: [.get])
    }

    /// `/add-venue`: outside `/venues`, whose next segment is always a venue's id.
    func addVenueRoutes(to group: RouterGroup<APIRequestContext>) {
        group.add(middleware: HTMLErrorMiddleware(templates: templates))
            .get { request, context in try await addVenue(request, context: context) }
            .methodNotAllowed("", allowing: [.get])
    }

    /// "Add a venue", starting from what a search was given (`name`, `near`).
    func addVenue(_ request: Request, context: some RequestContext) async throws -> Response {
        let parameters = try request.formQuery()
        let page = AddVenuePage(name: String((parameters["name"] ?? "").prefix(200)), near: String((parameters["near"] ?? "").prefix(64)))
        return try await templates.renderPublic("public_add_venue", page, scripts: .connecting, request: request, context: context)
    }

    func search(_ request: Request, context: some RequestContext) async throws -> Response {
        let parameters = try request.formQuery()
        let q = parameters["q"]?.trimmingCharacters(in: .whitespaces) ?? ""
        let near = parameters["near"]?.trimmingCharacters(in: .whitespaces) ?? ""
        let hearingLoss = try Validation.hearingLoss(parameters["hearing_loss"])
        // One more than are shown, to tell a person when there are more.
        var query = VenueQuery(near: nil, radiusM: Self.searchRadiusM, nameWords: try Validation.searchText(q), limit: VenueSearchPage.shown + 1)
        var problem: String?
        if !near.isEmpty {
            if let place = Coordinate(text: near) { query.near = place } else { problem = "Type the place as latitude,longitude, for example -33.87,151.21." }
        }
        var when: VenueSearchPage.When?
        do {
            when = try VenueSearchPage.When.chosen(day: parameters["day"] ?? "", hour: parameters["hour"] ?? "")
        } catch {
            problem = problem ?? error.words
        }
        if when != nil, near.isEmpty { problem = problem ?? "A weekday and an hour rank the venues near a place: give the place too." }
        var found = VenueSearchPage.Found.listed([])
        if problem == nil, !q.isEmpty || !near.isEmpty {
            if let when, let place = query.near {
                if let at = try await hour(when, near: place) {
                    let ranking = try await VenueRanking(
                        query, at: at, hearingLoss: hearingLoss, repository: repository, settings: settings, estimates: try await estimates.current())
                    found = .ranked(ranking, now: when == .now)
                }
            } else {
                found = .listed(try await repository.venues(matching: query))
            }
        }
        let page = VenueSearchPage(q: q, near: near, when: when, found: found, problem: problem, scale: settings.scale, hearingLoss: hearingLoss)
        guard problem == nil else { return try templates.render("public_search", page, status: .badRequest, scripts: .own) }
        return try await templates.renderPublic("public_search", page, scripts: .own, request: request, context: context)
    }

    /// The weekday and hour a search near `place` ranks at: now, on the clock of the venue nearest
    /// it (`nil` without a venue within the search's radius).
    private func hour(_ when: VenueSearchPage.When, near place: Coordinate) async throws -> WeekdayHour? {
        switch when {
        case .at(let at):
            return at
        case .now:
            let nearest = try await repository.venues(matching: VenueQuery(near: place, radiusM: Self.searchRadiusM, nameWords: nil, limit: 1))
            return nearest.first.flatMap { TimeZone(identifier: $0.venue.timezone) }.map { WeekdayHour(Date(), in: $0) }
        }
    }

    /// "Measure here": the venue must exist (a merged one sends the browser to where it went).
    func measure(_ request: Request, context: some RequestContext) async throws -> Response {
        let id = try context.parameters.require("venue_id")
        guard VenueID.isValid(id), let venue = try await repository.venue(id: id) else {
            if VenueID.isValid(id), let target = try await repository.mergedVenue(id: id) {
                return Response.redirect(to: "/venues/\(target)/measure", type: .permanent)
            }
            throw APIError.notFound("There is no venue with the id “\(id)”. Find it by its name or where it is.")
        }
        return try await templates.renderPublic("public_measure", PublicMeasurePage(venue: venue), scripts: .measuring, request: request, context: context)
    }

    func venue(_ request: Request, context: some RequestContext) async throws -> Response {
        let id = try context.parameters.require("venue_id")
        guard VenueID.isValid(id), let venue = try await repository.venue(id: id), let aggregates = try await repository.loudness(venueID: id) else {
            if VenueID.isValid(id), let target = try await repository.mergedVenue(id: id) { return Response.redirect(to: "/venues/\(target)", type: .permanent) }
            throw APIError.notFound("There is no venue with the id “\(id)”. Find it by its name or where it is.")
        }
        let hearingLoss = try Validation.hearingLoss(try request.formQuery()["hearing_loss"])
        let evidence = try await repository.evidence(venueIDs: [id])[id]?.cells ?? [:]
        let answerContext = AnswerContext(
            scale: settings.scale, rules: settings.conversation, evidence: evidence, venueID: id, estimates: try await estimates.current())
        let page = PublicVenuePage(venue: venue, aggregates: aggregates, context: answerContext, hearingLoss: hearingLoss)
        return try await templates.renderPublic("public_venue", page, request: request, context: context)
    }
}
