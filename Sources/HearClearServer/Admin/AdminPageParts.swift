import Foundation
import HearClearAnalysis
import HearClearCore

// One model per admin page, built by a query function from the store, rendered by the template
// of the same name (Sources/HearClearServer/Templates). Values from clients are plain strings here:
// the templates escape them. SVG is built by `Charts`, which escapes what it embeds.

/// What every page's header needs. Stored properties only: templates see what Mirror shows.
struct PageChrome {
    let title: String
    let csrf: String
    let onDashboard: Bool
    let onVenues: Bool
    let onDevices: Bool
    let onCalibration: Bool
    let onScale: Bool

    init(title: String, csrf: String, section: String) {
        self.title = title
        self.csrf = csrf
        onDashboard = section == "dashboard"
        onVenues = section == "venues"
        onDevices = section == "devices"
        onCalibration = section == "calibration"
        onScale = section == "scale"
    }
}

/// A count shown with its noun apart, the number styled: grouped in threes, the noun agreeing
/// with it ("1 venue", "147,940 samples").
struct Count {
    let number: String
    let noun: String

    init(_ count: Int, _ noun: String) {
        number = count.grouped
        self.noun = count.form(of: noun)
    }
}

enum Formatting {
    static func utc(_ date: Date) -> String {
        local(date, timeZone: TimeZone(identifier: "UTC")!) + " UTC"
    }

    static func local(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!)
    }

    static func level(_ level: Double?) -> String {
        level.map { String(format: "%.1f dB(A)", $0) } ?? "–"
    }

    static func share(_ part: Int, of whole: Int) -> String {
        whole == 0 ? "–" : String(format: "%.1f%%", Double(part) / Double(whole) * 100)
    }
}

struct VenueRow {
    let id: String
    let name: String
    let timezone: String
    let checkins: String
    let latest: String
    /// In the "loudest" listing: the level over the chosen hours, and its label.
    let level: String?
    let label: String?

    init(_ listing: VenueListing, level: Double? = nil, scale: LabelScale? = nil) {
        id = listing.id
        name = listing.name
        timezone = listing.timezone
        checkins = listing.checkIns.grouped
        latest = listing.latestCheckIn.map(Formatting.utc) ?? "never"
        self.level = level.map(Formatting.level)
        label = level.flatMap { level in scale?.label(for: level) }
    }
}

/// A table of check-ins (the `checkin_rows` partial).
struct CheckInTable {
    let checkInRows: [CheckInRow]
}

struct DeviceRow {
    let id: String
    let model: String
    let platform: String
    let firstSeen: String
    let lastSeen: String
    let checkins: String
    let outlierShare: String
    let banned: Bool
    /// A quarter or more of at least 4 check-ins were outliers: worth a look.
    let suspicious: Bool

    init(_ listing: DeviceListing) {
        id = listing.id.wireString
        model = listing.model
        platform = listing.platform
        firstSeen = Formatting.utc(listing.firstSeen)
        lastSeen = Formatting.utc(listing.lastSeen)
        checkins = listing.checkIns.grouped
        outlierShare = Formatting.share(listing.outliers, of: listing.checkIns)
        banned = listing.banned
        suspicious = listing.checkIns >= 4 && listing.outliers * 4 >= listing.checkIns
    }
}

struct CheckInRow {
    let id: String
    let venueID: String
    let venueName: String
    let deviceID: String
    let deviceModel: String
    let started: String
    let level: String
    let label: String
    let samples: Count
    let dropped: String
    /// The status as the API spells it, for the row's class, and in words.
    let status: String
    let statusWords: String
    let marked: Bool

    init(_ listing: CheckInListing, scale: LabelScale) {
        id = listing.id.wireString
        venueID = listing.venueID
        venueName = listing.venueName
        deviceID = listing.deviceID.wireString
        deviceModel = listing.deviceModel
        started = Formatting.utc(listing.startedAt)
        level = Formatting.level(listing.levelDB)
        label = listing.levelDB.map(scale.label(for:)) ?? ""
        samples = Count(listing.samples, "sample")
        dropped = listing.droppedSamples.grouped
        status = listing.status.rawValue
        statusWords = listing.status.words
        marked = listing.markedOutlier
    }
}
