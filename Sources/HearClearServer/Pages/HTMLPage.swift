import Foundation
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

    /// A page as a response; `scripts` lets the page load this server's own scripts (none may be inline).
    func render(_ template: String, _ model: Any, status: HTTPResponse.Status = .ok, scripts: Bool = false, cache: String = "no-store") throws -> Response {
        guard let html = library.render(model, withTemplate: template) else {
            throw HTTPError(.internalServerError, message: "the \(template) template is missing")
        }
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8",
                // Styles and scripts from this server's files only: an injected one could not run.
                .contentSecurityPolicy:
                    "default-src 'none'; style-src 'self'; img-src 'self'; script-src \(scripts ? "'self'" : "'none'"); form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
                .cacheControl: cache,
                .init("Referrer-Policy")!: "same-origin",
                .init("X-Content-Type-Options")!: "nosniff",
            ],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
