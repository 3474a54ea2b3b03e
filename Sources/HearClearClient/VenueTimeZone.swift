import Foundation
import HearClearCore

/// The time zone a new venue takes when `venue add` is given none. Every hour the server answers
/// is the venue's local hour, so a wrong zone files every check-in there hours off: this
/// computer's zone is taken only where it can be the venue's. The tz database's zone1970.tab
/// names, for each zone, the place its clocks were set by; the zone of the place nearest the venue
/// is the one to compare with and to suggest. (No library here maps coordinates to zones: that
/// needs the zones' borders, which no Debian package ships.)
public enum VenueTimeZone {
    /// Where the table usually is, on Linux and macOS alike.
    public static let table = "/usr/share/zoneinfo/zone1970.tab"

    /// A zone and the place its clocks were set by.
    struct Place {
        let zone: String
        let coordinate: Coordinate
    }

    public struct Unsure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `computer`, when it can be the venue's zone: a zone of places (not UTC), whose clocks read
    /// as those of the place nearest the venue, now and half a year from now (daylight saving).
    /// Otherwise `Unsure`, saying which zone to give instead.
    public static func forNewVenue(at venue: Coordinate, computer: TimeZone = .current, now: Date = Date(), table: String = table) throws -> String {
        let nearest = nearestZone(to: venue, among: places(in: table))
        let suggestion = nearest.map { ": give --timezone, e.g. --timezone \($0) (the zone of the place nearest the venue in the tz database)" }
            ?? ": give --timezone, e.g. --timezone Europe/Paris"
        guard isOfPlaces(computer) else {
            throw Unsure(description: "this computer's time zone, \(computer.identifier), says nothing of where the venue is\(suggestion)")
        }
        guard let nearest, let theirs = TimeZone(identifier: nearest) else { return computer.identifier }
        let halfAYear = now.addingTimeInterval(182 * 86_400)
        guard [now, halfAYear].allSatisfy({ computer.secondsFromGMT(for: $0) == theirs.secondsFromGMT(for: $0) }) else {
            throw Unsure(description: "this computer's clock (\(computer.identifier)) reads otherwise than at the venue\(suggestion)")
        }
        return computer.identifier
    }

    /// Not one of the zones that are only an offset (`Etc/UTC`, `GMT`, `Etc/GMT+5`): a computer
    /// left on UTC is the usual case, and UTC is no venue's clock.
    static func isOfPlaces(_ zone: TimeZone) -> Bool {
        !zone.identifier.hasPrefix("Etc/") && !["UTC", "UCT", "GMT", "GMT0", "GMT+0", "GMT-0", "Greenwich", "Universal", "Zulu", "Factory"].contains(zone.identifier)
    }

    static func nearestZone(to venue: Coordinate, among places: [Place]) -> String? {
        places.min { venue.distance(to: $0.coordinate) < venue.distance(to: $1.coordinate) }?.zone
    }

    /// The table's places; none when it cannot be read.
    static func places(in table: String) -> [Place] {
        guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t")
            guard !line.hasPrefix("#"), fields.count >= 3, let coordinate = coordinate(String(fields[1])) else { return nil }
            return Place(zone: String(fields[2]), coordinate: coordinate)
        }
    }

    /// ISO 6709 as the table writes it: `+4230+00131` (±DDMM±DDDMM) or with seconds (±DDMMSS±DDDMMSS).
    static func coordinate(_ text: String) -> Coordinate? {
        let characters = Array(text)
        guard let split = characters.dropFirst().firstIndex(where: { $0 == "+" || $0 == "-" }) else { return nil }
        guard let latitude = degrees(characters[..<split], degreeDigits: 2), let longitude = degrees(characters[split...], degreeDigits: 3) else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    private static func degrees(_ text: ArraySlice<Character>, degreeDigits: Int) -> Double? {
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let digits = text.dropFirst().compactMap(\.wholeNumberValue)
        guard digits.count == text.count - 1, digits.count == degreeDigits + 2 || digits.count == degreeDigits + 4 else { return nil }
        func number(_ range: Range<Int>) -> Double { Double(digits[range].reduce(0) { $0 * 10 + $1 }) }
        let minutes = number(degreeDigits..<degreeDigits + 2)
        let seconds = digits.count > degreeDigits + 2 ? number(degreeDigits + 2..<degreeDigits + 4) : 0
        let value = number(0..<degreeDigits) + minutes / 60 + seconds / 3600
        return sign == "-" ? -value : value
    }
}
