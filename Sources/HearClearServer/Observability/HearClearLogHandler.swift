import Foundation
import Logging

/// How log lines look: text for people, JSON lines for log collectors.
public enum LogFormat: String, Sendable, CaseIterable {
    case text, json
}

/// swift-log's handler for the server: one line per message with a UTC timestamp, the level, the
/// label, the metadata and the message, handed to a `BufferedLogWriter`. Formatting is written by
/// hand because swift-log's stream handler formats a local timestamp with strftime and writes under
/// a lock on the caller's thread, which cost the access log about 40 % of the server's throughput.
public struct HearClearLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    let label: String
    let format: LogFormat
    let writer: BufferedLogWriter

    public init(label: String, format: LogFormat, writer: BufferedLogWriter) {
        self.label = label
        self.format = format
        self.writer = writer
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Hummingbird's request id, under the name people look for.
    static let requestIDKey = "hb.request.id"
    /// The JSON keys of every line, which metadata cannot override.
    static let reservedKeys: Set<String> = ["timestamp", "level", "label", "message", "request_id"]

    public func log(event: LogEvent) {
        let level = event.level, message = event.message
        // Merged only when a call brings metadata of its own: an access-log line brings none.
        let all = event.metadata.map { metadata.merging($0) { $1 } } ?? metadata
        let id = all[Self.requestIDKey]
        let others = all.count > (id == nil ? 0 : 1) ? all.keys.filter { $0 != Self.requestIDKey }.sorted() : []
        let timestamp = Self.timestamp()
        switch format {
        case .text:
            var text = "\(timestamp) \(level) \(label):"
            if let id { text += " request_id=\(id)" }
            for key in others { text += " \(key)=\(all[key]!)" }
            writer.append(text + " " + message.description)
        case .json:
            var json = "{\"timestamp\":\"\(timestamp)\",\"level\":\"\(level)\",\"label\":" + Self.quoted(label)
            if let id { json += ",\"request_id\":" + Self.quoted("\(id)") }
            for key in others where !Self.reservedKeys.contains(key) {
                json += "," + Self.quoted(key) + ":" + Self.quoted("\(all[key]!)")
            }
            writer.append(json + ",\"message\":" + Self.quoted(message.description) + "}")
        }
    }

    /// `2026-11-22T04:33:33.123Z`, put together by hand: String(format:) was the access log's largest cost.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return "\(parts.tm_year + 1900)-\(padded(parts.tm_mon + 1, 2))-\(padded(parts.tm_mday, 2))T\(padded(parts.tm_hour, 2)):"
            + "\(padded(parts.tm_min, 2)):\(padded(parts.tm_sec, 2)).\(padded(now.tv_nsec / 1_000_000, 3))Z"
    }

    static func padded(_ value: some BinaryInteger, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// A JSON string literal (RFC 8259 escapes).
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20: out += String(format: "\\u%04x", c.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
