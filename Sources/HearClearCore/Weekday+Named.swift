extension Weekday {
    /// A weekday as people write it in a query or on the command line: its name or its first three
    /// letters or more, in any case (`friday`, `Friday`, `fri`); `nil` for anything else. One rule
    /// for `at=friday-20` and `weekday=friday` alike, which once read them differently.
    public init?(named text: String) {
        let name = text.lowercased()
        guard name.count >= 3, let weekday = Self.allCases.first(where: { $0.rawValue.hasPrefix(name) }) else { return nil }
        self = weekday
    }
}
