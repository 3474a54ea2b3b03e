import Foundation
import HearClearAnalysis
import HearClearCore
import Hummingbird

/// `/api/v1/venues`: creating venues, finding them, and their loudness; `/api/v2/venues`: their
/// loudness with the conversation measures, and their quiet times.
struct VenueController {
    let repository: any Repository
    let settings: ServerSettings
    /// Per-device and per-address write limits; nil when they are off.
    let limiter: RateLimiter?
    let answers: LoudnessAnswers
    let estimates: VenueEstimates

    static let defaultRadiusM = 1000.0
    static let maximumRadiusM = 100_000.0
    static let defaultLimit = 20
    static let maximumLimit = 100

    func addRoutes(to group: RouterGroup<APIRequestContext>) {
        group.get(use: list)
            .methodNotAllowed("", allowing: [.get])
        group.get(":venue_id", use: show)
            .methodNotAllowed(":venue_id", allowing: [.get, .put])
        let writes = group.group(":venue_id")
        if let limiter { writes.add(middleware: AddressRateLimitMiddleware(limiter: limiter, trustedProxies: settings.trustedProxies)) }
        writes.add(middleware: DeviceAuthenticator(repository: repository, limiter: limiter))
            .group(context: DeviceRequestContext.self).put(use: save)
        group.get(":venue_id/loudness", use: loudness)
            .methodNotAllowed(":venue_id/loudness", allowing: [.get])
    }

    func addVersion2Routes(to group: RouterGroup<APIRequestContext>) {
        group.get(use: ranking)
            .methodNotAllowed("", allowing: [.get])
        group.get(":venue_id/loudness", use: conversationLoudness)
            .methodNotAllowed(":venue_id/loudness", allowing: [.get])
        group.get(":venue_id/quiet-times", use: quietTimes)
            .methodNotAllowed(":venue_id/quiet-times", allowing: [.get])
    }

    @Sendable func save(_ request: Request, context: DeviceRequestContext) async throws -> EditedResponse<Venue> {
        try request.refuseQueryParameters()
        let id = try venueID(context)
        let venue = try Validation.venue(try await request.decodeJSON(VenueUpsert.self, limit: settings.maxBodyBytes, timeout: settings.bodyTimeout))
        let status: HTTPResponse.Status
        switch try await repository.saveVenue(id: id, venue, by: context.device.id, at: Date()) {
        case .created: status = .created
        case .updated: status = .ok
        case .notOwner:
            throw APIError.forbidden(
                "venue \(id) can be changed only by the device that created it, and by the server's operators: ask them to correct it")
        case .merged(let target): throw merged(id, into: target, path: "")
        }
        guard let summary = try await repository.venue(id: id) else { throw APIError.notFound("venue \(id) not found") }
        return EditedResponse(status: status, response: present(summary))
    }

    @Sendable func show(_ request: Request, context: APIRequestContext) async throws -> Venue {
        try request.refuseQueryParameters()
        let id = try venueID(context)
        guard let summary = try await repository.venue(id: id) else { throw try await notFound(id, path: "") }
        return present(summary)
    }

    /// 404 for an unknown venue; 308 to its new id for a venue merged into another.
    private func notFound(_ id: String, path: String, version: Int = 1) async throws -> HTTPError {
        if let target = try await repository.mergedVenue(id: id) { return merged(id, into: target, path: path, version: version) }
        return APIError.notFound("venue \(id) not found")
    }

    private func merged(_ id: String, into target: String, path: String, version: Int = 1) -> HTTPError {
        HTTPError(.permanentRedirect, headers: [.location: "/api/v\(version)/venues/\(target)\(path)"], message: "venue \(id) was merged into \(target)")
    }

    @Sendable func list(_ request: Request, context: APIRequestContext) async throws -> VenueList {
        let query = try venueQuery(request.formQuery(allowing: ["near", "radius", "limit", "q"]))
        return VenueList(venues: try await repository.venues(matching: query).map(present))
    }

    @Sendable func ranking(_ request: Request, context: APIRequestContext) async throws -> VenueRanking {
        let parameters = try request.formQuery(allowing: ["near", "radius", "limit", "at", "hearing_loss"])
        let query = try venueQuery(parameters)
        guard query.near != nil else { throw APIError.badRequest("near is required: \(TypedPlace.rule)") }
        guard let text = parameters["at"] else { throw APIError.badRequest("at is required: \(WeekdayHour.rule), the venues' local time") }
        guard let at = WeekdayHour(text) else { throw APIError.badRequest("at must be \(WeekdayHour.rule)") }
        return try await VenueRanking(
            query, at: at, hearingLoss: try Validation.hearingLoss(parameters["hearing_loss"]), repository: repository, settings: settings,
            estimates: try await estimates.current())
    }

    /// The search of `parameters`.
    private func venueQuery(_ parameters: [String: String]) throws -> VenueQuery {
        var query = VenueQuery(near: nil, radiusM: Self.defaultRadiusM, nameWords: nil, limit: Self.defaultLimit)
        if let near = parameters["near"] {
            guard let place = Coordinate(text: near) else { throw APIError.badRequest("near must be \(TypedPlace.rule)") }
            query.near = place
        }
        if let radius = parameters["radius"] {
            guard let metres = Double(radius), metres.isFinite, metres > 0, metres <= Self.maximumRadiusM else {
                throw APIError.badRequest("radius must be metres, more than 0 and at most \(Int(Self.maximumRadiusM))")
            }
            query.radiusM = metres
        }
        if let limit = parameters["limit"] {
            guard let count = Int(limit), (1...Self.maximumLimit).contains(count) else {
                throw APIError.badRequest("limit must be a whole number from 1 to \(Self.maximumLimit)")
            }
            query.limit = count
        }
        query.nameWords = try Validation.searchText(parameters["q"])
        return query
    }

    @Sendable func loudness(_ request: Request, context: APIRequestContext) async throws -> Response {
        try request.refuseQueryParameters()
        let id = try venueID(context)
        return try await answers.answer(venueID: id, request: request, context: context) {
            Loudness(venueID: id, aggregates: try await aggregates(id, path: "/loudness"), scale: settings.scale)
        }
    }

    @Sendable func conversationLoudness(_ request: Request, context: APIRequestContext) async throws -> Response {
        try request.refuseQueryParameters()
        let id = try venueID(context)
        // Confidence ages with the days, so a cached answer is kept for the day it was made at most.
        let today = AnswerContext.day()
        return try await answers.answer(venueID: id, document: "v2 loudness \(today)", request: request, context: context) {
            ConversationLoudness(venueID: id, aggregates: try await aggregates(id, path: "/loudness", version: 2), context: try await answerContext(id, today: today))
        }
    }

    @Sendable func quietTimes(_ request: Request, context: APIRequestContext) async throws -> QuietTimes {
        let id = try venueID(context)
        let parameters = try request.formQuery(allowing: ["weekday", "hearing_loss"])
        let weekday = try parameters["weekday"].map { text in
            guard let weekday = Weekday(named: text) else {
                throw APIError.badRequest("weekday must be one of \(Weekday.allCases.map(\.rawValue).joined(separator: ", ")), or its first three letters")
            }
            return weekday
        }
        return QuietTimes(
            venueID: id, weekday: weekday, aggregates: try await aggregates(id, path: "/quiet-times", version: 2), context: try await answerContext(id),
            hearingLoss: try Validation.hearingLoss(parameters["hearing_loss"]))
    }

    /// The rules, the venue's evidence and its estimates for its v2 answers.
    private func answerContext(_ id: String, today: Int = AnswerContext.day()) async throws -> AnswerContext {
        AnswerContext(
            scale: settings.scale, rules: settings.conversation, evidence: try await repository.evidence(venueIDs: [id])[id]?.cells ?? [:], today: today,
            venueID: id, estimates: try await estimates.current())
    }

    /// A venue's cells; 404 for an unknown venue or one without a usable check-in.
    private func aggregates(_ id: String, path: String, version: Int = 1) async throws -> [LoudnessAggregate] {
        guard let aggregates = try await repository.loudness(venueID: id) else { throw try await notFound(id, path: path, version: version) }
        guard !aggregates.isEmpty else { throw APIError.notFound("venue \(id) has no usable check-in yet") }
        return aggregates
    }

    private func venueID(_ context: some RequestContext) throws -> String {
        let id = try context.parameters.require("venue_id")
        guard VenueID.isValid(id) else { throw APIError.badRequest("venue_id must be \(VenueID.rule)") }
        return id
    }

    private func present(_ summary: VenueSummary) -> Venue {
        let level = summary.aggregate?.levelDB
        return Venue(
            id: summary.id, name: summary.venue.name, latitude: summary.venue.latitude, longitude: summary.venue.longitude,
            timezone: summary.venue.timezone, kind: summary.venue.kind, checkins: summary.aggregate?.checkins ?? 0,
            levelDB: level.map(Level.rounded), label: level.map(settings.scale.label(for:)),
            distanceM: summary.distanceM.map { ($0 * 10).rounded() / 10 })
    }
}
