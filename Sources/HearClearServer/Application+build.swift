import Foundation
import GRDB
import HearClearCore
import Hummingbird
import LevelMeter
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// Everything `hearclear-server serve` needs to know.
public struct ServerConfiguration: Sendable {
    public var hostname: String
    public var port: Int
    /// A SQLite file (the default) or a PostgreSQL server.
    public var database: DatabaseLocation
    public var settings: ServerSettings
    /// The folder of static files served under `/public` (the admin pages' CSS).
    public var publicFolder: String
    /// Where `GET /metrics` is served (same hostname, its own port), from the registry swift-metrics
    /// was bootstrapped with; nil: nowhere.
    public var metrics: (port: Int, registry: PrometheusCollectorRegistry)?

    public init(
        hostname: String = "127.0.0.1", port: Int = 8080, database: DatabaseLocation = .sqlite(path: "hearclear.sqlite"), settings: ServerSettings = .init(),
        publicFolder: String = "Public"
    ) {
        self.hostname = hostname
        self.port = port
        self.database = database
        self.settings = settings
        self.publicFolder = publicFolder
    }
}

/// Opens and migrates the database, then builds the HTTP application on it.
public func buildApplication(_ configuration: ServerConfiguration, logger: Logger) async throws -> some ApplicationProtocol {
    let opened = try await OpenedStore.open(configuration.database, defaultCalibrationDB: configuration.settings.defaultCalibrationDB, logger: logger)
    let repository = opened.store
    let schemaVersion = opened.schemaVersion
    let router = try await buildRouter(store: opened, settings: configuration.settings, publicFolder: configuration.publicFolder, logger: logger)
    if configuration.settings.adminPassword == nil {
        logger.notice("The admin pages are off: set HEARCLEAR_ADMIN_PASSWORD (or admin_password in the config file) to turn them on.")
    }
    let database = configuration.database.description
    let connections = ConnectionCounts(limit: configuration.settings.maxConnectionsPerAddress, exempt: configuration.settings.trustedProxies)
    // Shut down in reverse order, after the HTTP server has let the requests in flight finish:
    // the store closes last.
    var services: [any Service] = opened.services
    if let days = configuration.settings.retentionDays {
        services.append(RetentionService(repository: repository, days: days, logger: logger))
    }
    if let metrics = configuration.metrics {
        services.append(metricsApplication(hostname: configuration.hostname, port: metrics.port, registry: metrics.registry, logger: logger))
    }
    return Application(
        router: router,
        // A connection that has not sent a whole request head this long after it opened or after its
        // last answer is closed (Hummingbird's idle timeout counts from the last complete part, so a
        // head trickled a line at a time is cut off too); slow bodies are cut off by bodyTimeout.
        server: .http1(
            configuration: .init(
                additionalChannelHandlers: [ConnectionGuard(counts: connections)],
                idleTimeout: .init(configuration.settings.headerTimeout))),
        configuration: .init(address: .hostname(configuration.hostname, port: configuration.port), serverName: "hearclear"),
        services: services,
        onServerRunning: { channel in
            let address = channel.localAddress.map { "\($0.ipAddress ?? configuration.hostname):\($0.port ?? configuration.port)" } ?? "?"
            logger.notice("HearClear server listening on http://\(address), database \(database), schema \(schemaVersion)")
        },
        logger: logger)
}

/// Builds the application and serves until SIGINT or SIGTERM. Then it stops accepting connections,
/// lets the requests in flight finish for up to `shutdownGrace` (an upload either completes or gets
/// no answer; none is acknowledged and lost), and closes the store. A port taken by another
/// process is said in words rather than as the socket error.
public func serve(_ configuration: ServerConfiguration, logger: Logger, shutdownGrace: Duration = .seconds(10)) async throws {
    let app = try await buildApplication(configuration, logger: logger)
    var group = ServiceGroupConfiguration(services: [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    group.maximumGracefulShutdownDuration = shutdownGrace
    do {
        try await ServiceGroup(configuration: group).run()
        logger.notice("HearClear server stopped")
    } catch let error as IOError where error.errnoCode == EADDRINUSE {
        throw StartFailure(
            description: "port \(configuration.port) on \(configuration.hostname) is already in use (another hearclear-server?): stop it, or choose another port with --port")
    }
}

public struct StartFailure: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// `GET /metrics` in the Prometheus text format, on a listener of its own so that it stays off the
/// public one (bind it to loopback, or let only the monitoring network reach it).
func metricsApplication(hostname: String, port: Int, registry: PrometheusCollectorRegistry, logger: Logger) -> some Service {
    let router = Router()
    router.get("metrics") { _, _ -> Response in
        var text: [UInt8] = []
        registry.emit(into: &text)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: text)))
    }
    return Application(
        router: router, configuration: .init(address: .hostname(hostname, port: port), serverName: "hearclear-metrics"),
        onServerRunning: { channel in
            logger.notice("Metrics on http://\(channel.localAddress?.ipAddress ?? hostname):\(channel.localAddress?.port ?? port)/metrics")
        },
        logger: logger)
}

/// The routes of API v1 and, when a password is set, the admin pages, on a store. Tests build it
/// on a temporary database.
public func buildRouter(
    store: OpenedStore, settings: ServerSettings, publicFolder: String = "Public", logger: Logger = Logger(label: "hearclear")
) async throws -> Router<APIRequestContext> {
    let repository = store.store
    let router = Router(context: APIRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: SecurityHeadersMiddleware(trustedProxies: settings.trustedProxies))
    let templates = try await PageTemplates.load(requiring: PublicController.templateNames + AdminController.templateNames)
    router.add(middleware: ErrorMiddleware(pages: HTMLErrorMiddleware(templates: templates)))
    router.add(
        middleware: FileMiddleware(
            publicFolder, urlBasePath: "/public",
            cacheControl: CacheControl([
                (MediaType(type: .text, subType: "css"), [.public, .maxAge(3600)]),
                (MediaType(type: .image, subType: "svg+xml"), [.public, .maxAge(86_400)]),
                // The measuring page's scripts are asked for again on every load (an unchanged one
                // is a 304): scripts of two releases, or a script older than its page, would not
                // work together, and no build step here puts a version in their addresses.
                (MediaType(type: .text, subType: "javascript"), [.public, .noCache]),
            ]),
            logger: logger))

    // The public search is what a person opening the server's address is looking for.
    router.get("/") { _, _ in Response.redirect(to: "/venues", type: .normal) }
    // Browsers ask for /favicon.ico whatever the pages link to.
    router.get("favicon.ico") { _, _ in Response.redirect(to: "/public/favicon.svg", type: .permanent) }
    // Up, and able to reach its store: a load balancer sends requests elsewhere while it cannot.
    router.get("healthz") { _, _ in
        guard store.isReachable() else { throw StoreUnavailable(reason: "PostgreSQL does not answer") }
        return "ok"
    }
        .methodNotAllowed("healthz", allowing: [.get])

    let api = router.group("api/v1")
    let limiter = settings.rateLimit > 0 ? RateLimiter(perMinute: settings.rateLimit, buckets: store.rateBuckets) : nil
    DeviceController(repository: repository, settings: settings, limiter: limiter).addRoutes(to: api.group("devices"))
    let estimates = VenueEstimates(
        repository: repository, changes: store.changes, parameters: settings.estimates, refitInterval: settings.estimateRefitInterval)
    let venues = VenueController(
        repository: repository, settings: settings, limiter: limiter, answers: LoudnessAnswers(changes: store.changes), estimates: estimates)
    venues.addRoutes(to: api.group("venues"))
    venues.addVersion2Routes(to: router.group("api/v2/venues"))
    let checkIns = CheckInController(repository: repository, settings: settings, limiter: limiter, uploads: UploadGate(capacity: settings.maxConcurrentUploads))
    checkIns.addRoutes(to: api.group("checkins"))
    checkIns.addVersion2Routes(to: router.group("api/v2/checkins"))
    // Loaded here, so that a server installed without the model says so as it starts.
    MeterDesignController(defaultCalibrationDB: settings.defaultCalibrationDB, classifier: try SoundClassifier.loadShipped())
        .addRoutes(to: router.group("api/v2/meter-design"))
    CalibrationController(repository: repository, defaultCalibrationDB: settings.defaultCalibrationDB).addRoutes(to: router.group("api/v2/calibration"))

    api.get("scale") { request, _ in
        try request.refuseQueryParameters()
        return settings.scale
    }
        .methodNotAllowed("scale", allowing: [.get])
    api.get("openapi.yaml") { request, _ in
        try request.refuseQueryParameters()
        return try OpenAPIDocument.response()
    }
        .methodNotAllowed("openapi.yaml", allowing: [.get])

    let publicPages = PublicController(repository: repository, settings: settings, templates: templates, estimates: estimates)
    publicPages.addRoutes(to: router.group("venues"))
    publicPages.addVenueRoutes(to: router.group("add-venue"))
    if let password = settings.adminPassword {
        AdminController(store: repository, settings: settings, templates: templates, authenticator: AdminAuthenticator(password: password, failures: store.rateBuckets, trustedProxies: settings.trustedProxies))
            .addRoutes(to: router.group("admin"))
    }
    return router
}

extension LabelScale: ResponseEncodable {}

/// The OpenAPI document of API v1 (docs/openapi.yaml), shipped as a resource.
enum OpenAPIDocument {
    static func response() throws -> Response {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
            throw HTTPError(.internalServerError, message: "the OpenAPI document is missing from this build")
        }
        let text = try String(contentsOf: url, encoding: .utf8)
        return Response(
            status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

// The API's documents are answers as they are (encoded by APIResponseEncoder).
extension DeviceCredentials: ResponseEncodable {}
extension Venue: ResponseEncodable {}
extension VenueList: ResponseEncodable {}
extension CheckInReceipt: ResponseEncodable {}
extension CheckInV2: ResponseEncodable {}
extension QuietTimes: ResponseEncodable {}
extension VenueRanking: ResponseEncodable {}
