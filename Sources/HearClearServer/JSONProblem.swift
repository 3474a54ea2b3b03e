import Foundation

/// What a decoder found wrong in a JSON document, in the document's own terms — where
/// (`samples[3].avg`) and what was expected there — never Swift's type names: an API client and an
/// operator editing a config file read the same words.
struct JSONProblem: CustomStringConvertible {
    let description: String
    /// A value of the right type that its field does not take (out of range, not a date), rather
    /// than a document of the wrong shape.
    let isValue: Bool

    /// `root` names the document itself where the problem is at its top ("body", "top level");
    /// `document` is what the decoder read; `numbers` says which of its numbers must be whole.
    init(_ error: DecodingError, root: String, document: Data, numbers: String = "a fraction where a whole number is expected, or one out of range") {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // Foundation's decoder also says "not valid JSON", with no path, of a valid number that
            // does not fit its field (-400.5 or 1e30 where a whole number is expected).
            if (try? JSONSerialization.jsonObject(with: document, options: [.fragmentsAllowed])) != nil {
                (description, isValue) = ("a number does not fit its field: \(numbers)", true)
            } else {
                (description, isValue) = ("malformed JSON: \(context.underlyingError.map { "\($0)" } ?? context.debugDescription)", false)
            }
        case let .dataCorrupted(context):
            (description, isValue) = ("\(Self.path(context.codingPath, root: root)): \(context.debugDescription)", true)
        case let .keyNotFound(key, context):
            (description, isValue) = ("\(Self.path(context.codingPath + [key], root: root)) is missing", false)
        case let .typeMismatch(expected, context):
            (description, isValue) = ("\(Self.path(context.codingPath, root: root)): expected \(Self.describe(expected))", false)
        case let .valueNotFound(expected, context):
            (description, isValue) = ("\(Self.path(context.codingPath, root: root)): expected \(Self.describe(expected)), found null", false)
        @unknown default:
            (description, isValue) = ("not JSON of the expected shape", false)
        }
    }

    /// `samples[3].avg` style paths.
    static func path(_ codingPath: [any CodingKey], root: String) -> String {
        guard !codingPath.isEmpty else { return root }
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Double.Type, is Float.Type: "a number"
        case is Int.Type: "an integer"
        case is Bool.Type: "true or false"
        case is [Any].Type: "an array"
        // A keyed container expects a dictionary, which is a collection too.
        case is [String: Any].Type: "an object"
        default: type is any Collection.Type ? "an array" : "an object"
        }
    }
}
