import Foundation
import HearClearCore

/// The values the API accepts. Violations are answered 422 (400 for ids in paths) with a message
/// naming the field, and nothing is stored.
enum Validation {
    static let maximumCheckInSeconds: Double = 12 * 3600
    static let maximumClockSkew: TimeInterval = 15 * 60

    /// Names, models and platforms: trimmed, not empty, no control characters, at most `maximumLength` characters.
    static func text(_ value: String, field: String, maximumLength: Int = 200) throws -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw APIError.unprocessable("\(field) must not be empty") }
        guard trimmed.count <= maximumLength else { throw APIError.unprocessable("\(field) is longer than \(maximumLength) characters") }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError.unprocessable("\(field) must not contain control characters")
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
        guard isTimeZone(venue.timezone) else {
            throw APIError.unprocessable("timezone \"\(venue.timezone)\" is not a time zone of the tz database, like Europe/Paris or Etc/UTC")
        }
        return VenueUpsert(name: try text(venue.name, field: "name"), latitude: venue.latitude, longitude: venue.longitude, timezone: venue.timezone)
    }

    /// A name of the system's tz database (`Asia/Kolkata`, `Etc/GMT+5`, `US/Eastern`, `UTC`).
    /// `knownTimeZoneIdentifiers` is not the test: on Linux it lacks many of them. Foundation also
    /// makes zones of offsets like `GMT+5`, which it renames (`GMT+0500`); those are not tz names,
    /// and `GMT+5` means the opposite offset of `Etc/GMT+5`, so they are refused.
    static func isTimeZone(_ identifier: String) -> Bool {
        guard let zone = TimeZone(identifier: identifier) else { return false }
        return zone.identifier == identifier || identifier == "UTC"
    }

    static func checkIn(_ checkIn: CheckIn, now: Date) throws {
        guard VenueID.isValid(checkIn.venueID) else { throw APIError.unprocessable("venue_id must be \(VenueID.rule)") }
        guard checkIn.startedAt.timeIntervalSince(now) <= maximumClockSkew else {
            throw APIError.unprocessable("started_at is more than 15 minutes in the future")
        }
        guard checkIn.intervalS.isFinite, checkIn.intervalS > 0, checkIn.intervalS <= 3600 else {
            throw APIError.unprocessable("interval_s must be more than 0 and at most 3600")
        }
        guard checkIn.weighting == .a else {
            throw APIError.unprocessable("weighting must be \"A\": venue loudness is kept in dB(A)")
        }
        if let calibration = checkIn.calibrationDB {
            guard calibration.isFinite, (0...200).contains(calibration) else {
                throw APIError.unprocessable("calibration_db must be between 0 and 200")
            }
        }
        guard !checkIn.samples.isEmpty else { throw APIError.unprocessable("samples must not be empty") }
        guard Double(checkIn.samples.count) * checkIn.intervalS <= maximumCheckInSeconds else {
            throw APIError.unprocessable("a check-in holds at most 12 hours of samples")
        }
        var previousT = -Double.infinity
        for (index, sample) in checkIn.samples.enumerated() {
            let field = "samples[\(index)]"
            guard sample.t.isFinite, sample.t >= 0, sample.t <= maximumCheckInSeconds else {
                throw APIError.unprocessable("\(field).t must be between 0 and 43200 seconds")
            }
            guard sample.t > previousT else { throw APIError.unprocessable("\(field).t must be greater than the t before it") }
            previousT = sample.t
            try level(sample.avg, field: "\(field).avg")
            try level(sample.peak, field: "\(field).peak")
            guard sample.avg <= sample.peak else {
                throw APIError.unprocessable("\(field): avg \(sample.avg) is above peak \(sample.peak)")
            }
        }
        previousT = -Double.infinity
        for (index, event) in checkIn.events.enumerated() {
            let field = "events[\(index)]"
            guard event.t.isFinite, event.t >= 0, event.t <= maximumCheckInSeconds, event.t > previousT else {
                throw APIError.unprocessable("\(field).t must be between 0 and 43200 seconds and greater than the t before it")
            }
            previousT = event.t
            try level(event.peak, field: "\(field).peak")
            guard event.durationS.isFinite, event.durationS >= 0, event.durationS <= maximumCheckInSeconds else {
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
