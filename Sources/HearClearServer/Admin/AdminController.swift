import Foundation
import HearClearCore
import Hummingbird

/// `/admin`: the operators' pages. Each GET builds its page's model and renders its template;
/// each POST changes one thing, checked against the session's CSRF token, and redirects back.
struct AdminController {
    static let templateNames = ["dashboard", "venues", "venue", "devices", "checkin", "calibration", "scale"]

    let store: any AdminStore
    let settings: ServerSettings
    let templates: PageTemplates
    let authenticator: AdminAuthenticator

    func addRoutes(to parent: RouterGroup<APIRequestContext>) {
        let group = parent.add(middleware: HTMLErrorMiddleware(templates: templates)).add(middleware: authenticator).group(context: AdminRequestContext.self)
        group.get { _, context in try render("dashboard", try await DashboardPage.model(store: store, scale: settings.scale, session: context.session, now: Date())) }
        group.get("venues") { request, context in
            let parameters = try request.formQuery()
            let page = parameters["page"].flatMap { Int($0) }.map { max(1, $0) } ?? 1
            let listing: VenuesPage.Listing
            if let day = parameters["day"] {
                let weekday = Weekday(rawValue: day)?.index
                guard weekday != nil || day == "any" else { throw APIError.badRequest("day must be a weekday name or any") }
                let from = parameters["from"].flatMap { Int($0) } ?? 0
                let to = parameters["to"].flatMap { Int($0) } ?? 23
                guard (0...23).contains(from), (0...23).contains(to), from <= to else { throw APIError.badRequest("from and to must be hours, from 0 to 23, from ≤ to") }
                listing = .loudest(LocalWindow(weekday: weekday, hours: from...to))
            } else {
                listing = .search(try Validation.searchText(parameters["q"]))
            }
            return try render("venues", try await VenuesPage.model(store: store, listing: listing, page: page, scale: settings.scale, session: context.session))
        }
        group.get("venues/:venue_id") { _, context in
            let id = try context.parameters.require("venue_id")
            guard let model = try await VenuePage.model(store: store, id: id, scale: settings.scale, rules: settings.conversation, session: context.session) else {
                if let target = try await store.mergedVenue(id: id) { return Response.redirect(to: "/admin/venues/\(target)", type: .permanent) }
                throw APIError.notFound("venue \(id) not found")
            }
            return try render("venue", model)
        }
        group.post("venues/:venue_id/edit") { request, context in
            let form = try await checkedForm(request, context)
            let id = try context.parameters.require("venue_id")
            func number(_ field: String) throws -> Double {
                guard let value = form[field].flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }) else {
                    throw APIError.unprocessable("\(field) must be a number")
                }
                return value
            }
            let kind = try (form["kind"] ?? "").isEmpty ? nil : VenueKind(rawValue: form["kind"]!) ?? {
                throw APIError.unprocessable("kind must be one of \(VenueKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }()
            let venue = try Validation.venue(
                VenueUpsert(
                    name: form["name"] ?? "", latitude: try number("latitude"), longitude: try number("longitude"), timezone: form["timezone"] ?? "",
                    kind: kind))
            guard try await store.editVenue(id: id, venue, at: Date()) else { throw APIError.notFound("venue \(id) not found") }
            return Response.redirect(to: "/admin/venues/\(id)", type: .normal)
        }
        group.post("venues/:venue_id/transfer") { request, context in
            let form = try await checkedForm(request, context)
            let id = try context.parameters.require("venue_id")
            guard let device = form["device"].flatMap({ UUID(uuidString: $0.trimmingCharacters(in: .whitespaces)) }) else {
                throw APIError.unprocessable("device must be a device id, as the devices page lists them")
            }
            try venueChange(try await store.transferVenue(id: id, to: device, at: Date()), id: id)
            return Response.redirect(to: "/admin/venues/\(id)", type: .normal)
        }
        group.post("venues/:venue_id/merge") { request, context in
            let form = try await checkedForm(request, context)
            let id = try context.parameters.require("venue_id")
            let target = (form["into"] ?? "").trimmingCharacters(in: .whitespaces)
            try venueChange(try await store.mergeVenue(id: id, into: target, at: Date()), id: id, target: target)
            return Response.redirect(to: "/admin/venues/\(target)", type: .normal)
        }
        group.get("checkins/:checkin_id") { _, context in
            let id = try checkInID(context)
            guard let model = try await CheckInPage.model(store: store, id: id, scale: settings.scale, session: context.session) else {
                throw APIError.notFound("check-in \(id.wireString) not found")
            }
            return try render("checkin", model)
        }
        group.post("checkins/:checkin_id/outlier") { request, context in
            let form = try await checkedForm(request, context)
            let id = try checkInID(context)
            guard try await store.setOutlierMark(checkIn: id, marked: form["marked"] == "1") else {
                throw APIError.notFound("check-in \(id.wireString) not found")
            }
            return Response.redirect(to: "/admin/checkins/\(id.wireString)", type: .normal)
        }
        group.get("devices") { _, context in try render("devices", try await DevicesPage.model(store: store, session: context.session)) }
        group.post("devices/:device_id/ban") { request, context in
            let form = try await checkedForm(request, context)
            guard let id = UUID(uuidString: try context.parameters.require("device_id")) else { throw APIError.notFound("no such device") }
            guard try await store.setBanned(device: id, banned: form["banned"] == "1") else { throw APIError.notFound("device \(id.wireString) not found") }
            return Response.redirect(to: "/admin/devices", type: .normal)
        }
        group.post("devices/:device_id/delete") { request, context in
            let form = try await checkedForm(request, context)
            guard let id = UUID(uuidString: try context.parameters.require("device_id")) else { throw APIError.notFound("no such device") }
            guard form["confirm"] == "1" else { throw APIError.unprocessable("tick the box to confirm: the device's check-ins and samples are deleted for good") }
            guard try await store.deleteDevice(id) else { throw APIError.notFound("device \(id.wireString) not found") }
            return Response.redirect(to: "/admin/devices", type: .normal)
        }
        group.get("calibration") { _, context in
            try render("calibration", try await CalibrationPage.model(store: store, settings: settings, session: context.session))
        }
        group.post("calibration") { request, context in
            let form = try await checkedForm(request, context)
            let model = try Validation.text(form["model"] ?? "", field: "model")
            var offset: Double?
            if let text = form["offset"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
                guard let value = Double(text), Level.plausibleDB.contains(value) else {
                    throw APIError.unprocessable("the offset must be a number of dB \(Level.plausibleDBText)")
                }
                offset = value
            }
            try await store.setCalibration(model: model, offsetDB: offset, at: Date())
            return Response.redirect(to: "/admin/calibration", type: .normal)
        }
        group.get("scale") { _, context in try render("scale", ScalePage.model(scale: settings.scale, session: context.session)) }
        group.post("logout") { request, context in
            _ = try await checkedForm(request, context)
            // 401 with the challenge again: browsers then forget the password they were sending.
            return try HTMLErrorMiddleware<AdminRequestContext>(templates: templates).page(
                status: .unauthorized, message: "You are signed out. Close this page, or sign in again with the admin password.",
                headers: [
                    .setCookie: authenticator.endSession(context.session.id),
                    .wwwAuthenticate: "Basic realm=\"\(AdminAuthenticator.realm)\", charset=\"UTF-8\"",
                ])
        }
    }

    private func checkInID(_ context: AdminRequestContext) throws -> UUID {
        let text = try context.parameters.require("checkin_id")
        guard let id = UUID(uuidString: text) else { throw APIError.notFound("check-in \(text) not found") }
        return id
    }

    /// Refuses what an operator's change to a venue could not do.
    private func venueChange(_ outcome: VenueAdminOutcome, id: String, target: String = "") throws {
        switch outcome {
        case .done: return
        case .noSuchVenue: throw APIError.notFound("venue \(id) not found")
        case .noSuchDevice: throw APIError.unprocessable("no device has that id: copy it from the devices page")
        case .noSuchTarget: throw APIError.unprocessable("venue \(target) not found: give the id of the venue to keep")
        case .sameVenue: throw APIError.unprocessable("a venue cannot be merged into itself")
        }
    }

    /// The fields of an urlencoded form, once its origin and its CSRF token are checked. Browsers
    /// send `Origin` with every POST: a form posted from another site is refused before its token
    /// is even read.
    private func checkedForm(_ request: Request, _ context: AdminRequestContext) async throws -> [String: String] {
        if let origin = request.headers[.origin], !Self.isSameOrigin(origin, host: request.head.authority) {
            throw HTTPError(.forbidden, message: "the form was sent from another site (\(origin)): open the admin pages here and send it from there")
        }
        var body = try await request.collectWholeBody(upTo: 64 * 1024)
        let text = body.readString(length: body.readableBytes) ?? ""
        let fields: [String: String]
        do {
            fields = try URLEncodedFormDecoder().decode([String: String].self, from: text)
        } catch {
            throw APIError.badRequest("the form is not urlencoded")
        }
        try context.session.check(fields)
        return fields
    }

    /// Whether `origin` (scheme://host[:port]) names the host the request was sent to (its `Host`,
    /// which the nginx recipe passes on as the client sent it).
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, let separator = origin.range(of: "://") else { return false }
        return origin[separator.upperBound...].lowercased() == host.lowercased()
    }

    private func render(_ template: String, _ model: Any) throws -> Response {
        // Admin pages need no script at all.
        try templates.render(template, model)
    }
}
