/// A string enum a client sends, whose refusal names the values it accepts. Swift's own message
/// names the Swift type instead ("Cannot initialize Dominant from invalid String value loud"),
/// which tells a client's author nothing.
public protocol WireEnum: RawRepresentable<String>, CaseIterable, Codable {}

extension WireEnum {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Self(rawValue: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "must be one of \(Self.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), not \"\(text)\"")
        }
        self = value
    }
}
