import Foundation
import HearClearAnalysis
import HearClearCore

/// What an operator can tune in the `--config` JSON file. Every key is optional:
///
///     {"scale": {"unit": "dBA", "bands": [{"label": "quiet", "max_db": 70}, ...]},
///      "max_body_bytes": 4194304, "default_calibration_db": 110, "admin_password": "...",
///      "rate_limit": 60, "max_concurrent_uploads": 64, "body_timeout_s": 30, "header_timeout_s": 10,
///      "max_connections_per_address": 128, "retention_days": 365,
///      "trusted_proxies": ["127.0.0.1"], "listener_distance_m": 1, "hearing_loss_snr_db": 7,
///      "estimates": {"neighbour_hour_weight": 0.5, "similar_day_weight": 0.5, "profile_prior_checkins": 4,
///                    "minimum_spread_db": 1}, "estimates_refit_s": 60}
public struct ServerSettings: Sendable, Equatable {
    public var scale: LabelScale
    /// The largest request body accepted, counted after decompression.
    public var maxBodyBytes: Int
    /// Turns dBFS into dB SPL for check-ins that bring no calibration of their own (docs/analysis.md).
    public var defaultCalibrationDB: Double
    /// The password of the admin pages (user `admin`); without one they are off.
    public var adminPassword: String?
    /// Writes a minute per device; ten times as many per client address. 0 turns the limit off.
    public var rateLimit: Int
    /// Check-in uploads handled at once; more are answered 503 with `Retry-After`.
    public var maxConcurrentUploads: Int
    /// How long a request body may take to arrive, so slow senders cannot hold the server.
    public var bodyTimeout: Duration
    /// How long a connection may take to send a whole request head, counted from when it opened or
    /// from its last answer: a client trickling a header line at a time is closed, and so is an
    /// idle kept-alive connection.
    public var headerTimeout: Duration
    /// Connections one client address may hold open at once (trusted proxies aside).
    public var maxConnectionsPerAddress: Int
    /// Days raw samples are kept (counted from a check-in's start); nil keeps them forever.
    public var retentionDays: Int?
    /// Addresses of reverse proxies (nginx) whose `X-Forwarded-For` names the client, for the
    /// per-address limit; from any other peer the header is ignored, so clients cannot forge it.
    public var trustedProxies: Set<String>
    /// The listener's distance and the hearing-loss margin of the conversation answers (API v2).
    public var conversation: ConversationRules
    /// How the hours nobody measured are estimated (docs/analysis.md, "Estimates for the hours nobody measured").
    public var estimates: EstimateParameters
    /// How often at most the estimates are fitted again while check-ins keep changing.
    public var estimateRefitInterval: Duration

    public init(
        scale: LabelScale = .standard, maxBodyBytes: Int = 4 * 1024 * 1024, defaultCalibrationDB: Double = Level.defaultCalibrationDB,
        adminPassword: String? = nil, rateLimit: Int = 60, maxConcurrentUploads: Int = 64, bodyTimeout: Duration = .seconds(30),
        headerTimeout: Duration = .seconds(10), maxConnectionsPerAddress: Int = 128,
        retentionDays: Int? = nil, trustedProxies: Set<String> = [], conversation: ConversationRules = .standard,
        estimates: EstimateParameters = .standard, estimateRefitInterval: Duration = .seconds(60)
    ) {
        self.scale = scale
        self.maxBodyBytes = maxBodyBytes
        self.defaultCalibrationDB = defaultCalibrationDB
        self.adminPassword = adminPassword
        self.rateLimit = rateLimit
        self.maxConcurrentUploads = maxConcurrentUploads
        self.bodyTimeout = bodyTimeout
        self.headerTimeout = headerTimeout
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.retentionDays = retentionDays
        self.trustedProxies = trustedProxies
        self.conversation = conversation
        self.estimates = estimates
        self.estimateRefitInterval = estimateRefitInterval
    }

    struct File: Decodable {
        var scale: LabelScale?
        var maxBodyBytes: Int?
        var defaultCalibrationDB: Double?
        var adminPassword: String?
        var rateLimit: Int?
        var maxConcurrentUploads: Int?
        var bodyTimeoutS: Double?
        var headerTimeoutS: Double?
        var maxConnectionsPerAddress: Int?
        var retentionDays: Int?
        var trustedProxies: [String]?
        var listenerDistanceM: Double?
        var hearingLossSNRDB: Double?
        var estimates: EstimateParameters?
        var estimatesRefitS: Double?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case scale
            case maxBodyBytes = "max_body_bytes"
            case defaultCalibrationDB = "default_calibration_db"
            case adminPassword = "admin_password"
            case rateLimit = "rate_limit"
            case maxConcurrentUploads = "max_concurrent_uploads"
            case bodyTimeoutS = "body_timeout_s"
            case headerTimeoutS = "header_timeout_s"
            case maxConnectionsPerAddress = "max_connections_per_address"
            case retentionDays = "retention_days"
            case trustedProxies = "trusted_proxies"
            case listenerDistanceM = "listener_distance_m"
            case hearingLossSNRDB = "hearing_loss_snr_db"
            case estimates
            case estimatesRefitS = "estimates_refit_s"
        }
    }

    /// What makes `password` unfit to guard the admin pages, or nil: it needs at least 8 characters
    /// besides spaces (eight spaces were accepted, and are guessed first).
    public static func adminPasswordProblem(_ password: String) -> String? {
        password.filter { !$0.isWhitespace }.count >= 8 ? nil : "must have at least 8 characters that are not spaces"
    }

    public struct InvalidFile: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads a config file over the defaults. A misspelt key is an error rather than silently ignored.
    public static func load(contentsOf path: String) throws -> ServerSettings {
        func invalid(_ why: String) -> InvalidFile { InvalidFile(description: "config file \(path): \(why)") }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw InvalidFile(description: "cannot read config file \(path): \(error.localizedDescription)")
        }
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            let known = Set(File.CodingKeys.allCases.map(\.stringValue))
            if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
                throw invalid("unknown key \"\(unknown)\" (known: \(known.sorted().joined(separator: ", ")))")
            }
            if let estimates = object["estimates"] as? [String: Any],
                let unknown = estimates.keys.sorted().first(where: { !EstimateParameters.keys.contains($0) })
            {
                throw invalid("unknown key \"\(unknown)\" in estimates (known: \(EstimateParameters.keys.joined(separator: ", ")))")
            }
        }
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch let error as DecodingError {
            throw invalid(JSONProblem(error, root: "top level", document: data).description)
        }
        var settings = ServerSettings()
        if let scale = file.scale {
            do { try scale.validate() } catch { throw invalid("\(error)") }
            settings.scale = scale
        }
        if let maxBodyBytes = file.maxBodyBytes {
            guard maxBodyBytes >= 1024 else { throw invalid("max_body_bytes must be at least 1024") }
            settings.maxBodyBytes = maxBodyBytes
        }
        if let calibration = file.defaultCalibrationDB {
            guard Level.plausibleDB.contains(calibration) else { throw invalid("default_calibration_db must be \(Level.plausibleDBText)") }
            settings.defaultCalibrationDB = calibration
        }
        if let password = file.adminPassword {
            if let problem = Self.adminPasswordProblem(password) { throw invalid("admin_password \(problem)") }
            settings.adminPassword = password
        }
        if let rateLimit = file.rateLimit {
            guard rateLimit >= 0 else { throw invalid("rate_limit must be 0 (off) or a number of writes a minute") }
            settings.rateLimit = rateLimit
        }
        if let uploads = file.maxConcurrentUploads {
            guard uploads >= 1 else { throw invalid("max_concurrent_uploads must be at least 1") }
            settings.maxConcurrentUploads = uploads
        }
        if let seconds = file.bodyTimeoutS {
            guard seconds.isFinite, seconds > 0, seconds <= 3600 else { throw invalid("body_timeout_s must be more than 0 and at most 3600") }
            settings.bodyTimeout = .milliseconds(Int64(seconds * 1000))
        }
        if let seconds = file.headerTimeoutS {
            guard seconds.isFinite, seconds >= 1, seconds <= 3600 else { throw invalid("header_timeout_s must be between 1 and 3600") }
            settings.headerTimeout = .milliseconds(Int64(seconds * 1000))
        }
        if let connections = file.maxConnectionsPerAddress {
            guard connections >= 1 else { throw invalid("max_connections_per_address must be at least 1") }
            settings.maxConnectionsPerAddress = connections
        }
        if let days = file.retentionDays {
            guard days >= 1 else { throw invalid("retention_days must be at least 1 (leave it out to keep samples forever)") }
            settings.retentionDays = days
        }
        if let proxies = file.trustedProxies {
            var addresses: Set<String> = []
            for text in proxies {
                guard let address = ClientAddress.normalised(text) else { throw invalid("trusted_proxies must list IP addresses; \"\(text)\" is not one") }
                addresses.insert(address)
            }
            settings.trustedProxies = addresses
        }
        if let metres = file.listenerDistanceM {
            guard metres.isFinite, metres >= 0.25, metres <= 10 else { throw invalid("listener_distance_m must be between 0.25 and 10") }
            settings.conversation.listenerDistanceM = metres
        }
        if let margin = file.hearingLossSNRDB {
            guard margin.isFinite, (0...30).contains(margin) else { throw invalid("hearing_loss_snr_db must be between 0 and 30") }
            settings.conversation.hearingLossSNRDB = margin
        }
        if let estimates = file.estimates { settings.estimates = estimates }
        if let seconds = file.estimatesRefitS {
            guard seconds.isFinite, seconds >= 1, seconds <= 86_400 else { throw invalid("estimates_refit_s must be between 1 and 86400") }
            settings.estimateRefitInterval = .milliseconds(Int64(seconds * 1000))
        }
        return settings
    }
}
