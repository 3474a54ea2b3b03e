import Hummingbird
import HTTPTypes

/// Lets the measuring page's service worker (`Public/measure-worker.js`, served under `/public/`)
/// answer for the pages under `/venues/`, where the measuring pages are: a browser gives a worker
/// only the folder of its script unless the script's answer allows more.
struct MeasuringWorkerScopeMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext

    static let script = "/public/measure-worker.js"
    static let scope = "/venues/"
    static let allowed = HTTPField.Name("Service-Worker-Allowed")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        if request.uri.path == Self.script, response.status == .ok || response.status == .notModified { response.headers[Self.allowed] = Self.scope }
        return response
    }
}
