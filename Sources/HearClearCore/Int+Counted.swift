extension Int {
    /// The count with its noun, singular for one: "1 check-in", "16 check-ins". Every noun counted
    /// in the product's words takes an s.
    public func counted(_ noun: String) -> String {
        "\(self) \(noun)\(self == 1 ? "" : "s")"
    }
}
