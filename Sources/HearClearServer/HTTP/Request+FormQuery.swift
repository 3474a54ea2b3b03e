import Hummingbird

extension Request {
    /// The query string's parameters as a browser's form sends them: `application/x-www-form-urlencoded`,
    /// where `+` is a space. Hummingbird's `uri.queryParameters` leaves `+` a plus, so a search for
    /// "Bloomsbury Cafe" typed into a form looked for "Bloomsbury+Cafe"; `URLEncodedFormDecoder`
    /// decodes it. A parameter given twice, or one that cannot be percent-decoded, is a 400.
    func formQuery() throws -> [String: String] {
        guard let query = uri.query, !query.isEmpty else { return [:] }
        do {
            return try URLEncodedFormDecoder().decode([String: String].self, from: query)
        } catch let error as URLEncodedFormError where error.code == .duplicateKeys {
            throw APIError.badRequest("the query parameter \"\(error.value)\" is given more than once")
        } catch {
            throw APIError.badRequest("the query string must be name=value pairs joined by &, percent-encoded")
        }
    }

    /// `formQuery()` of an API operation that takes the parameters `known` (none when empty): any
    /// other is a 400 naming it, so that a misspelt or guessed parameter (`radious=`, `hour=` on a
    /// loudness answer) is an error rather than silently ignored. The public pages do not ask this:
    /// links to them get parameters added on the way (`utm_source`, `fbclid`).
    func formQuery(allowing known: [String]) throws -> [String: String] {
        let parameters = try formQuery()
        if let unknown = parameters.keys.sorted().first(where: { !known.contains($0) }) {
            let use =
                switch known.count {
                case 0: "this address takes none"
                case 1: "use \(known[0])"
                default: "use \(known.dropLast().joined(separator: ", ")) and \(known[known.count - 1])"
                }
            throw APIError.badRequest("unknown query parameter \"\(unknown)\": \(use)")
        }
        return parameters
    }

    /// For an API operation that takes no query parameters: any is a 400 (`formQuery(allowing:)`).
    func refuseQueryParameters() throws {
        _ = try formQuery(allowing: [])
    }
}
