import Foundation
import HearClearCore

/// The values the API accepts. Violations are answered 422 (400 for ids in paths) with a message
/// naming the field, and nothing is stored.
enum Validation {
    static let maximumClockSkew: TimeInterval = 15 * 60
    /// What a meter's interval can be: whole seconds, as every sum counts seconds
    /// (`CheckInAnalysis.seconds(perInterval:)`). A part of a second would weigh as a second: a
    /// check-in in 0.1 s intervals counted ten times its time in its venue's level, and a 3 KB body
    /// of 600 000 intervals of 0.1 ms each forged a venue's level and took 6 s to store.
    static let intervals: ClosedRange<Double> = 1...60
    /// No check-in is older than the project; an earlier start is a device whose clock was never set.
    static let earliestStart = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01T00:00:00Z

    /// Names, models and platforms: trimmed, not empty, at most `maximumLength` Unicode scalars, and
    /// none that hides or rearranges text (`invisible`).
    ///
    /// Scalars, not characters: a character (a grapheme cluster) can carry any number of combining
    /// marks, and a "name of 200 characters" of one letter and 1.9 M marks was 3.8 MB.
    static func text(_ value: String, field: String, maximumLength: Int = 200) throws -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw APIError.unprocessable("\(field) must not be empty") }
        guard trimmed.unicodeScalars.count <= maximumLength else {
            throw APIError.unprocessable("\(field) is longer than \(maximumLength) characters (counting each accent and mark as one)")
        }
        if let scalar = trimmed.unicodeScalars.first(where: invisible) {
            throw APIError.unprocessable(
                "\(field) must not contain control, formatting or invisible characters (it contains U+\(String(scalar.value, radix: 16, uppercase: true)))")
        }
        return trimmed
    }

    /// Control characters, and the format characters that are invisible yet change what is shown:
    /// zero-width spaces and joiners, bidirectional overrides and isolates (which can make a name
    /// read backwards next to others), soft hyphens; and line and paragraph separators.
    static func invisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    /// What a person searches venues by (`q`): nil when blank; at most 200 scalars and nothing
    /// `invisible` (a NUL ended the text where the database read it, and matched every venue).
    static func searchText(_ value: String?) throws -> String? {
        guard let trimmed = value?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
        guard trimmed.unicodeScalars.count <= 200 else { throw APIError.badRequest("q is longer than 200 characters") }
        guard !trimmed.unicodeScalars.contains(where: invisible) else {
            throw APIError.badRequest("q must not contain control or invisible characters")
        }
        return trimmed
    }

    static func registration(_ registration: DeviceRegistration) throws -> DeviceRegistration {
        DeviceRegistration(
            model: try text(registration.model, field: "model"),
            platform: try text(registration.platform, field: "platform"))
    }

    static func venue(_ venue: VenueUpsert) throws -> VenueUpsert {
        guard venue.latitude.isFinite, (-90...90).contains(venue.latitude) else {
            throw APIError.unprocessable("latitude must be between -90 and 90")
        }
        guard venue.longitude.isFinite, (-180...180).contains(venue.longitude) else {
            throw APIError.unprocessable("longitude must be between -180 and 180")
        }
        guard let zone = timeZone(spelledAnyhow: venue.timezone) else {
            let suggestion = timeZone(nearest: venue.timezone).map { ": did you mean \($0)?" } ?? ", like Europe/Paris or Etc/UTC"
            throw APIError.unprocessable("timezone \"\(venue.timezone)\" is not a time zone of the tz database\(suggestion)")
        }
        var valid = venue
        valid.timezone = zone
        valid.name = try text(venue.name, field: "name")
        return valid
    }

    /// A name of the system's tz database (`Asia/Kolkata`, `Etc/GMT+5`, `US/Eastern`, `UTC`).
    /// `knownTimeZoneIdentifiers` is not the test: on Linux it lacks many of them. Foundation also
    /// makes zones of offsets like `GMT+5`, which it renames (`GMT+0500`); those are not tz names,
    /// and `GMT+5` means the opposite offset of `Etc/GMT+5`, so they are refused.
    static func isTimeZone(_ identifier: String) -> Bool {
        guard let zone = TimeZone(identifier: identifier) else { return false }
        return zone.identifier == identifier || identifier == "UTC"
    }

    /// A zone named in any case (`europe/london`), as the tz database spells it (`Europe/London`),
    /// so that one zone has one spelling.
    static func timeZone(spelledAnyhow identifier: String) -> String? {
        if isTimeZone(identifier) { return identifier }
        return zone(identifier) { part, names in names.first { $0.caseInsensitiveCompare(part) == .orderedSame } }
    }

    /// The zone a misspelt name most likely meant (`Europe/Londn`: `Europe/London`): each part
    /// as spelled in any case, else the nearest name within two edits; nil when none is that near.
    /// Parts with digits are left alone: `GMT+5` is not a typo of `GMT+0`.
    static func timeZone(nearest identifier: String) -> String? {
        // Only short names are compared, so that a long one costs no more than a name.
        guard identifier.count <= 64, identifier.count(where: { $0 == "/" }) < 3 else { return nil }
        return zone(identifier) { part, names in
            if let same = names.first(where: { $0.caseInsensitiveCompare(part) == .orderedSame }) { return same }
            guard part.count >= 4, part.allSatisfy({ $0.isLetter || $0 == "_" || $0 == "-" }) else { return nil }
            return names.map { ($0, editDistance(part.lowercased(), $0.lowercased())) }.filter { $0.1 <= 2 }.min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
        }
    }

    /// The zone whose path `name` finds part by part among the zone files Foundation reads (TZDIR,
    /// else /usr/share/zoneinfo), given each part and the names in its folder; nil where it finds
    /// none, or a path that is no zone. Read from the files: Linux tells their names' case apart,
    /// and lists no zone names of its own that are complete (`isTimeZone`).
    private static func zone(_ identifier: String, name: (Substring, [String]) -> String?) -> String? {
        var folder = URL(fileURLWithPath: ProcessInfo.processInfo.environment["TZDIR"] ?? "/usr/share/zoneinfo", isDirectory: true)
        var spelled: [String] = []
        for part in identifier.split(separator: "/", omittingEmptySubsequences: false) {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path), let found = name(part, names) else { return nil }
            spelled.append(found)
            folder.appendPathComponent(found)
        }
        let zone = spelled.joined(separator: "/")
        return isTimeZone(zone) ? zone : nil
    }

    /// Levenshtein's distance: the fewest letters added, removed or changed to make one word the
    /// other. Written here as no library of the stack has it; it runs only on a refused name.
    static func editDistance(_ a: String, _ b: String) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// `hearing_loss` of a query: whether to answer for a listener with hearing loss.
    static func hearingLoss(_ text: String?) throws -> Bool {
        switch text {
        case nil, "false": return false
        case "true": return true
        default: throw APIError.badRequest("hearing_loss must be true or false")
        }
    }

    static func checkIn(_ checkIn: CheckIn, now: Date) throws {
        try header(of: checkIn, count: checkIn.samples.count, now: now)
        var previousT = -Double.infinity
        for (index, sample) in checkIn.samples.enumerated() {
            let field = "samples[\(index)]"
            try time(sample.t, after: previousT, field: "\(field).t")
            previousT = sample.t
            try level(sample.avg, field: "\(field).avg")
            try level(sample.peak, field: "\(field).peak")
            guard sample.avg <= sample.peak else {
                throw APIError.unprocessable("\(field): avg \(sample.avg) is above peak \(sample.peak)")
            }
        }
        try events(checkIn.events)
    }

    /// An API v2 check-in: its columns first (lengths, the details all or none, every level and
    /// class in range), naming the array and index of what is wrong; then what v1 checks too.
    static func checkIn(_ body: CheckInV2, now: Date) throws -> CheckIn {
        let levels = body.levels, count = levels.avg.count
        guard count > 0 else { throw APIError.unprocessable("levels.avg must not be empty") }
        var columns = [("avg", levels.avg), ("peak", levels.peak)]
        let details = levels.details
        let present = details.filter { $0.values != nil }
        if !present.isEmpty && present.count != details.count {
            let missing = details.filter { $0.values == nil }.map(\.name)
            throw APIError.unprocessable(
                "levels: \(details.map(\.name).joined(separator: ", ")) come all together or not at all; missing \(missing.joined(separator: ", "))")
        }
        columns += present.compactMap { detail in detail.values.map { ("\(detail.name)", $0) } }
        for (name, values) in columns where values.count != count {
            throw APIError.unprocessable("levels.\(name) has \(values.count) entries, levels.avg \(count): every array has one per interval")
        }
        if let t = levels.t, t.count != count {
            throw APIError.unprocessable("levels.t has \(t.count) entries, levels.avg \(count): every array has one per interval")
        }
        try header(of: body.checkIn, count: count, now: now)
        for (name, values) in columns {
            for (index, value) in values.enumerated() where !(tenthsFloor...0).contains(value) {
                throw APIError.unprocessable("levels.\(name)[\(index)] is \(value): levels are tenths of a dB between \(tenthsFloor) and 0 (dBFS)")
            }
        }
        var previousT = -Double.infinity
        for (index, t) in (levels.t ?? []).enumerated() {
            try time(t, after: previousT, field: "levels.t[\(index)]")
            previousT = t
        }
        for index in 0..<count where levels.avg[index] > levels.peak[index] {
            throw APIError.unprocessable("levels.avg[\(index)] \(levels.avg[index]) is above levels.peak[\(index)] \(levels.peak[index])")
        }
        if let fastMax = levels.fastMax {
            // Not the last interval: a meter stopped mid-interval sends what it measured of it, over
            // as little as a few samples, where the detector's rise has no bound.
            for index in 0..<count - 1 {
                let lowest = CheckInV2.tenths(LevelDetails.lowestFastMax(avg: Double(levels.avg[index]) / 10, interval: body.intervalS)) - 1
                guard fastMax[index] >= lowest else {
                    throw APIError.unprocessable(
                        "levels.fast_max[\(index)] \(fastMax[index]) is below levels.avg[\(index)] \(levels.avg[index]): the Fast maximum cannot be under the interval's average")
                }
            }
        }
        if let classes = body.classes {
            for (name, values) in [("speech", classes.speech), ("music", classes.music)] {
                guard values.count == count else {
                    throw APIError.unprocessable("classes.\(name) has \(values.count) entries, levels.avg \(count): every array has one per interval")
                }
                for (index, value) in values.enumerated() where !(0...100).contains(value) {
                    throw APIError.unprocessable("classes.\(name)[\(index)] is \(value): classes are whole percent from 0 to 100")
                }
            }
        }
        if let model = body.classesModel {
            guard body.classes != nil else { throw APIError.unprocessable("classes_model names the model that gave classes, and there are none") }
            guard (1...Self.largestClassesModel).contains(model) else {
                throw APIError.unprocessable("classes_model is \(model): a model's version is a whole number from 1 to \(Self.largestClassesModel)")
            }
        }
        try events(body.events)
        return body.checkIn
    }

    /// Far beyond any version a model will have; what a store keeps as a small integer.
    static let largestClassesModel = 32_767

    /// The lowest level in tenths of a dB.
    private static let tenthsFloor = CheckInV2.tenths(Level.floor)

    /// What a check-in says about itself, whatever its version: venue, time, interval, weighting,
    /// calibration and length.
    private static func header(of checkIn: CheckIn, count: Int, now: Date) throws {
        guard VenueID.isValid(checkIn.venueID) else { throw APIError.unprocessable("venue_id must be \(VenueID.rule)") }
        guard checkIn.startedAt.timeIntervalSince(now) <= maximumClockSkew else {
            throw APIError.unprocessable("started_at is more than 15 minutes in the future")
        }
        guard checkIn.startedAt >= earliestStart else {
            throw APIError.unprocessable("started_at is before 2000: check the device's clock")
        }
        guard intervals.contains(checkIn.intervalS), checkIn.intervalS == checkIn.intervalS.rounded() else {
            throw APIError.unprocessable(
                String(format: "interval_s must be a whole number of seconds from %g to %g, not %g", intervals.lowerBound, intervals.upperBound, checkIn.intervalS))
        }
        guard checkIn.weighting == .a else {
            throw APIError.unprocessable("weighting must be \"A\": venue loudness is kept in dB(A)")
        }
        if let calibration = checkIn.calibrationDB {
            guard Level.plausibleDB.contains(calibration) else {
                throw APIError.unprocessable("calibration_db must be \(Level.plausibleDBText)")
            }
        }
        guard count > 0 else { throw APIError.unprocessable("samples must not be empty") }
        guard Double(count) * checkIn.intervalS <= CheckIn.longestSeconds else {
            throw APIError.unprocessable("a check-in holds at most 12 hours of samples")
        }
    }

    private static func time(_ t: Double, after previous: Double, field: String) throws {
        guard t.isFinite, t >= 0, t <= CheckIn.longestSeconds else {
            throw APIError.unprocessable("\(field) must be between 0 and 43200 seconds")
        }
        guard t > previous else { throw APIError.unprocessable("\(field) must be greater than the t before it") }
    }

    private static func events(_ events: [LoudEvent]) throws {
        var previousT = -Double.infinity
        for (index, event) in events.enumerated() {
            let field = "events[\(index)]"
            guard event.t.isFinite, event.t >= 0, event.t <= CheckIn.longestSeconds, event.t > previousT else {
                throw APIError.unprocessable("\(field).t must be between 0 and 43200 seconds and greater than the t before it")
            }
            previousT = event.t
            try level(event.peak, field: "\(field).peak")
            guard event.durationS.isFinite, event.durationS >= 0, event.durationS <= CheckIn.longestSeconds else {
                throw APIError.unprocessable("\(field).duration_s must be between 0 and 43200 seconds")
            }
        }
    }

    /// Levels are dBFS: at most 0 (full scale), at least the −160 floor.
    private static func level(_ value: Double, field: String) throws {
        guard value.isFinite, value <= 0, value >= Level.floor else {
            throw APIError.unprocessable("\(field) must be a level in dBFS between -160 and 0")
        }
    }
}
