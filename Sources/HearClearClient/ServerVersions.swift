import Foundation

/// The servers that answered 404 to API v2's check-ins (older than v2), remembered in a file so the
/// client sends them v1 at once instead of trying v2 before every upload. Servers are upgraded, so
/// what is remembered expires after a day and v2 is tried again.
public struct ServerVersions: Sendable {
    public let file: URL
    static let memory: TimeInterval = 86_400

    public init(file: URL) {
        self.file = file
    }

    public init(paths: ClientPaths) {
        self.init(file: paths.dataFolder.appendingPathComponent("servers-without-v2.json"))
    }

    /// Server URL → when it answered 404 to v2.
    private func load() -> [String: Date] {
        guard let data = try? Data(contentsOf: file) else { return [:] }
        return (try? JSONDecoder.outbox.decode([String: Date].self, from: data)) ?? [:]
    }

    public func lacksVersion2(_ server: URL, now: Date = Date()) -> Bool {
        load()[server.absoluteString].map { now.timeIntervalSince($0) < Self.memory } ?? false
    }

    /// Remembered on a best-effort basis: a file that cannot be written only costs a v2 attempt later.
    public func rememberLacksVersion2(_ server: URL, now: Date = Date()) {
        var known = load().filter { now.timeIntervalSince($0.value) < Self.memory }
        known[server.absoluteString] = now
        try? DurableFile.write(try JSONEncoder.outbox.encode(known), to: file)
    }
}
