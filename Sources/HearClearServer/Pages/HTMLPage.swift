import Foundation
import HTTPTypes
import Hummingbird
import Mustache

/// The templates of every page (admin and public), shipped as resources of this module and read
/// once at start: a missing or misspelt template stops the server there, not a visitor's request.
struct PageTemplates: Sendable {
    let library: MustacheLibrary

    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    static func load(requiring names: [String]) async throws -> PageTemplates {
        guard let folder = Bundle.module.url(forResource: "Templates", withExtension: nil) else {
            throw Missing(description: "the page templates are missing from this build")
        }
        let library = try await MustacheLibrary(directory: folder.path)
        if let missing = names.first(where: { library.getTemplate(named: $0) == nil }) {
            throw Missing(description: "the page template \(missing).mustache is missing from this build")
        }
        return PageTemplates(library: library)
    }

    /// A page's HTML.
    func html(_ template: String, _ model: Any) throws -> String {
        guard let html = library.render(model, withTemplate: template) else {
            throw HTTPError(.internalServerError, message: "the \(template) template is missing")
        }
        return html
    }

    /// What a page's scripts may do: every script is one of this server's files, none inline.
    enum Scripts {
        case none
        /// Run, and talk to nobody.
        case own
        /// Run, and talk to this server (fetch): adding a venue.
        case connecting
        /// Run, talk to this server and use the microphone: the measuring page.
        case measuring

        var policy: String {
            switch self {
            case .none: "script-src 'none'"
            case .own: "script-src 'self'"
            case .connecting, .measuring: "script-src 'self'; connect-src 'self'"
            }
        }
    }

    /// A page as a response.
    func render(_ template: String, _ model: Any, status: HTTPResponse.Status = .ok, scripts: Scripts = .none, cache: String = "no-store") throws -> Response {
        try render(html: try html(template, model), status: status, scripts: scripts, cache: cache)
    }

    private func render(html: String, status: HTTPResponse.Status = .ok, scripts: Scripts, cache: String?) throws -> Response {
        var response = Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8",
                // Styles and scripts from this server's files only: an injected one could not run.
                .contentSecurityPolicy:
                    "default-src 'none'; style-src 'self'; img-src 'self'; \(scripts.policy); form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
                // Only the measuring page may ask for the microphone, and no page for anything else.
                Self.permissionsPolicy: "microphone=\(scripts == .measuring ? "(self)" : "()"), camera=(), geolocation=(self)",
                .init("Referrer-Policy")!: "same-origin",
            ],
            body: .init(byteBuffer: ByteBuffer(string: html)))
        if let cache { response.headers[.cacheControl] = cache }
        return response
    }

    /// A public page, which caches may keep for a minute (`PublicCaching`): 304 when the request
    /// already holds this very page.
    func renderPublic(_ template: String, _ model: Any, scripts: Scripts = .none, request: Request, context: some RequestContext) async throws -> Response {
        let html = try html(template, model)
        return try await PublicCaching.response(eTag: PublicCaching.entityTag(of: Array(html.utf8)), request: request, context: context) {
            // PublicCaching adds the cache's headers.
            try render(html: html, scripts: scripts, cache: nil)
        }
    }

    static let permissionsPolicy = HTTPField.Name("Permissions-Policy")!
}

/// Failures of the pages' routes as pages, not JSON: a browser shows the reason. The status and the
/// error's headers (the admin pages' `WWW-Authenticate`) are kept.
struct HTMLErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let templates: PageTemplates

    struct Page {
        let title: String
        let message: String
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            return try page(status: error.status, message: error.body ?? error.status.reasonPhrase, headers: error.headers)
        }
    }

    func page(status: HTTPResponse.Status, message: String, headers: HTTPFields = [:]) throws -> Response {
        var response = try templates.render("public_error", Page(title: status.reasonPhrase, message: message), status: status)
        for field in headers where field.name != .contentType && field.name != .contentLength { response.headers.append(field) }
        return response
    }
}
