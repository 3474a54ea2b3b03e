import Foundation

extension CaseResult {
    /// A goal a case's measurement is held to: its value, the side of a bound it must fall on, and
    /// what stands in its way when it misses.
    struct Goal: Encodable {
        /// The side of its bound a goal's value must fall on.
        enum Bound {
            case atLeast(Double), atMost(Double), below(Double)

            func holds(_ value: Double) -> Bool {
                switch self {
                case .atLeast(let bound): value >= bound
                case .atMost(let bound): value <= bound
                case .below(let bound): value < bound
                }
            }

            var text: String {
                let (sign, bound) =
                    switch self {
                    case .atLeast(let bound): ("≥", bound)
                    case .atMost(let bound): ("≤", bound)
                    case .below(let bound): ("<", bound)
                    }
                return "\(sign) \(bound.rounded() == bound ? String(format: "%.0f", bound) : String(format: "%.2f", bound))"
            }
        }

        let description: String
        let value: Double
        let bound: Bound
        /// What stands between the measurement and the goal, said in the report when it is missed.
        var whenMissed: String = ""

        var met: Bool { bound.holds(value) }
        var target: String { bound.text }

        /// The value as the report prints it: to the hundredth below 1000, with more decimals where
        /// the hundredth would put it on the other side of its bound (0.8987 against ≥ 0.90 reads
        /// 0.899, not a met-looking 0.90; 12.04 against ≤ 12 stays 12.04).
        var shownValue: String {
            if abs(value) >= 1000 { return Report.format(value) }
            for decimals in 2...6 {
                let shown = String(format: "%.\(decimals)f", value)
                if let read = Double(shown), bound.holds(read) == met { return shown }
            }
            return String(format: "%.6f", value)
        }

        private enum CodingKeys: String, CodingKey { case description, value, target, met, whenMissed }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(description, forKey: .description)
            try container.encode(value, forKey: .value)
            try container.encode(target, forKey: .target)
            try container.encode(met, forKey: .met)
            try container.encode(whenMissed, forKey: .whenMissed)
        }
    }
}
