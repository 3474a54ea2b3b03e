import Foundation

/// Where the client keeps things, from the XDG base directories:
/// the config in `$XDG_CONFIG_HOME/hearclear/config.json` (or `$HEARCLEAR_CONFIG`), check-ins
/// waiting to go up in `$XDG_DATA_HOME/hearclear/outbox`, refused ones in `.../rejected`.
public struct ClientPaths: Sendable {
    public var configFile: URL
    public var dataFolder: URL

    public var outbox: URL { dataFolder.appendingPathComponent("outbox", isDirectory: true) }
    public var rejected: URL { dataFolder.appendingPathComponent("rejected", isDirectory: true) }

    public init(configFile: URL, dataFolder: URL) {
        self.configFile = configFile
        self.dataFolder = dataFolder
    }

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let home = URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory(), isDirectory: true)
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? home.appendingPathComponent(".config", isDirectory: true)
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? home.appendingPathComponent(".local/share", isDirectory: true)
        self.configFile = environment["HEARCLEAR_CONFIG"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? configHome.appendingPathComponent("hearclear/config.json")
        self.dataFolder = dataHome.appendingPathComponent("hearclear", isDirectory: true)
    }
}

/// What `hearclear register`, `hearclear calibrate` and `hearclear hearing` remember. Written
/// with mode 0600: it holds the token.
public struct ClientConfig: Codable, Sendable, Equatable {
    public var server: String?
    public var deviceID: String?
    public var token: String?
    /// dB added to dBFS to estimate dB SPL with this microphone.
    public var calibrationDB: Double?
    /// Conversation answers are for a listener with hearing loss unless a command says otherwise.
    public var hearingLoss: Bool?

    public init(server: String? = nil, deviceID: String? = nil, token: String? = nil, calibrationDB: Double? = nil, hearingLoss: Bool? = nil) {
        self.server = server
        self.deviceID = deviceID
        self.token = token
        self.calibrationDB = calibrationDB
        self.hearingLoss = hearingLoss
    }

    enum CodingKeys: String, CodingKey {
        case server, token
        case deviceID = "device_id"
        case calibrationDB = "calibration_db"
        case hearingLoss = "hearing_loss"
    }

    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// The saved config, or an empty one when there is none yet.
    public static func load(from file: URL) throws -> ClientConfig {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder) else { return ClientConfig() }
        if isFolder.boolValue {
            throw Invalid(description: "\(file.path) is a folder: HEARCLEAR_CONFIG names the config file itself, like \(file.appendingPathComponent("config.json").path)")
        }
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw Invalid(description: "cannot read \(file.path): \((error as NSError).localizedDescription)")
        }
        // Foundation's own words name its types and debug descriptions; a person editing the file
        // needs where it went wrong, and that the token is in it.
        let problem: String
        do {
            return try JSONDecoder().decode(ClientConfig.self, from: data)
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            problem = "“\(context.codingPath.map(\.stringValue).joined(separator: "."))” holds a value of another kind than hearclear writes there"
        } catch {
            problem = "it is not JSON"
        }
        throw Invalid(
            description: "\(file.path) is not a hearclear config: \(problem). Mend it, or move it away and register again (`hearclear register --server URL`, as a new device).")
    }

    public func save(to file: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try DurableFile.write(try encoder.encode(self), to: file)
    }

    /// The token, for the server that issued it: the host this device registered with, as cookies
    /// are scoped (RFC 6265: by host, not port). Another host (`$HEARCLEAR_SERVER` naming another
    /// server) gets none: with it, whoever runs that one could upload and delete as this device.
    public func token(for server: URL) -> String? {
        guard let registered = self.server.flatMap(URL.init(string:))?.host?.lowercased(), registered == server.host?.lowercased() else { return nil }
        return token
    }

    /// The server to talk to: `$HEARCLEAR_SERVER` wins over the config.
    public func serverURL(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL {
        guard let text = environment["HEARCLEAR_SERVER"].flatMap({ $0.isEmpty ? nil : $0 }) ?? server else {
            throw Invalid(description: "no server configured: run `hearclear register --server URL` or set HEARCLEAR_SERVER")
        }
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw Invalid(description: "\(text) is not an http(s) URL" + (Self.withScheme(text).map { ": did you mean \($0)?" } ?? ""))
        }
        return url
    }

    /// A server typed without its scheme, as an address bar takes it: http:// for this machine or
    /// a bare address (a local server), https:// for a name; `nil` when a scheme would not mend it.
    static func withScheme(_ text: String) -> String? {
        guard !text.contains("://"), let host = URL(string: "http://\(text)")?.host, !host.isEmpty else { return nil }
        let local = host == "localhost" || host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" || $0 == "[" || $0 == "]" }
        return (local ? "http://" : "https://") + text
    }
}

/// Files that survive a crash: written to a temporary file, flushed to disk, then renamed over
/// the target, so a reader sees the old content or the new, never half of it.
public enum DurableFile {
    /// Readable by this user only, as everything the client keeps is theirs: where and when they
    /// measured, and their device's token.
    public static func write(_ data: Data, to file: URL, permissions: Int = 0o600) throws {
        let folder = file.deletingLastPathComponent()
        // Not made private: it may be anyone's (HEARCLEAR_CONFIG=/etc/hearclear.json).
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent("\(temporaryPrefix(of: file))\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, mode_t(permissions))
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path]) }
        do {
            try data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    guard written > 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path]) }
                    offset += written
                }
            }
            guard fsync(descriptor) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path]) }
            close(descriptor)
        } catch {
            close(descriptor)
            unlink(temporary.path)
            throw error
        }
        guard rename(temporary.path, file.path) == 0 else {
            unlink(temporary.path)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
        syncFolder(folder)
    }

    /// Removes the temporary files a killed writer of `file` left behind. Only for a caller that
    /// knows nobody is writing `file` now (it holds the lock that writer held).
    public static func removeLeftovers(of file: URL) {
        let folder = file.deletingLastPathComponent()
        let prefix = temporaryPrefix(of: file)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            unlink(folder.appendingPathComponent(name).path)
        }
    }

    /// `folder` and any folders missing above it, `folder` itself (even one made by an older
    /// client, 0755) open to this user only: for the outbox's folders, which are the client's own.
    public static func makePrivateFolder(_ folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard chmod(folder.path, 0o700) == 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: folder.path]) }
    }

    /// Hidden, so that a folder's readers skip it, and named for its target, so that it can be found.
    private static func temporaryPrefix(of file: URL) -> String {
        ".\(file.lastPathComponent)."
    }

    /// Makes a rename or removal in `folder` durable.
    static func syncFolder(_ folder: URL) {
        let descriptor = open(folder.path, O_RDONLY)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
    }
}
