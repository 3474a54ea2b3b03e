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
}
