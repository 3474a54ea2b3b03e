extension Int {
    /// The count with its noun, singular for one: "1 check-in", "16 check-ins", "147,940 samples".
    /// Every noun counted in the product's words takes an s.
    public func counted(_ noun: String) -> String {
        "\(grouped) \(form(of: noun))"
    }

    /// The noun as this count takes it, for a count written apart from it: "venue" for one, else "venues".
    public func form(of noun: String) -> String {
        self == 1 ? noun : noun + "s"
    }

    /// The count as English writes it for people, its digits in groups of three: "147,940". By
    /// hand, as Foundation's formatting follows the machine's locale and the product's words are
    /// English.
    public var grouped: String {
        let digits = String(magnitude)
        var text = self < 0 ? "-" : ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }
}
