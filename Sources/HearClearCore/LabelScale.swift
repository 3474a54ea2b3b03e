/// The words the server puts on levels ("quiet" … "very loud"). The server owns the scale and
/// sends the label with every level, so the scale can change without a client update.
public struct LabelScale: Codable, Sendable, Equatable {
    public struct Band: Codable, Sendable, Equatable {
        public var label: String
        /// The loudest whole dB that still gets this label; `nil` for the last, open-ended band.
        public var maxDB: Double?

        public init(label: String, maxDB: Double?) {
            self.label = label
            self.maxDB = maxDB
        }

        enum CodingKeys: String, CodingKey {
            case label
            case maxDB = "max_db"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(label, forKey: .label)
            try container.encode(maxDB, forKey: .maxDB)
        }
    }

    public var unit: String
    /// From quietest to loudest.
    public var bands: [Band]

    public init(unit: String = "dBA", bands: [Band]) {
        self.unit = unit
        self.bands = bands
    }

    /// The thresholds SoundPrint uses for venues: quiet ≤ 70, moderate 71–75, loud 76–80, very loud ≥ 81 dB(A).
    public static let standard = LabelScale(bands: [
        Band(label: "quiet", maxDB: 70),
        Band(label: "moderate", maxDB: 75),
        Band(label: "loud", maxDB: 80),
        Band(label: "very loud", maxDB: nil),
    ])

    /// The label of a level. The level is first rounded to the whole dB, as the thresholds are
    /// written, so 70.4 is "quiet" and 70.5 is "moderate".
    public func label(for level: Double) -> String {
        let whole = level.rounded()
        for band in bands {
            guard let maxDB = band.maxDB else { return band.label }
            if whole <= maxDB { return band.label }
        }
        return bands.last?.label ?? ""
    }

    public struct InvalidScale: Error, CustomStringConvertible {
        public let description: String
    }

    /// A scale is usable when it has bands, their thresholds rise, and the last, and only the last,
    /// is open-ended: a last band with a maximum left every level above it to be labelled by that
    /// band, a venue at 89.8 dB(A) "loud" on a scale whose "loud" ends at 80.
    public func validate() throws {
        guard !bands.isEmpty else { throw InvalidScale(description: "the label scale has no bands") }
        var previous = -Double.infinity
        for (index, band) in bands.enumerated() {
            guard !band.label.isEmpty else { throw InvalidScale(description: "band \(index + 1) of the label scale has no label") }
            let isLast = index == bands.count - 1
            switch band.maxDB {
            case nil where !isLast:
                throw InvalidScale(description: "only the last band of the label scale may omit max_db (band \"\(band.label)\")")
            case let maxDB? where !maxDB.isFinite || maxDB <= previous:
                throw InvalidScale(description: "max_db must rise from band to band (band \"\(band.label)\")")
            case let maxDB?:
                previous = maxDB
            case nil:
                break
            }
        }
        if let last = bands.last, let maxDB = last.maxDB {
            throw InvalidScale(
                description:
                    "the last band of the label scale must leave out max_db (or set it to null): it labels every level above the others (band \"\(last.label)\" ends at \(Int(exactly: maxDB).map(String.init) ?? "\(maxDB)"))")
        }
    }
}
