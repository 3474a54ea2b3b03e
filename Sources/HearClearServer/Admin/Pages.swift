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
    let checkins: Int
    let latest: String
    /// In the "loudest" listing: the level over the chosen hours, and its label.
    let level: String?
    let label: String?

    init(_ listing: VenueListing, level: Double? = nil, scale: LabelScale? = nil) {
        id = listing.id
        name = listing.name
        timezone = listing.timezone
        checkins = listing.checkIns
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
    let checkins: Int
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
        checkins = listing.checkIns
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
    let samples: Int
    let dropped: Int
    let status: String
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
        samples = listing.samples
        dropped = listing.droppedSamples
        status = listing.status.rawValue
        marked = listing.markedOutlier
    }
}

enum DashboardPage {
    struct Model {
        let chrome: PageChrome
        let venues: Int
        let devices: Int
        let checkins: Int
        let samples: Int
        let droppedShare: String
        let outlierShare: String
        let tooShortShare: String
        let recentVenues: [VenueRow]
        let recentDevices: [DeviceRow]
        let latest: CheckInTable
        let thrownOut: CheckInTable
        let dailyChart: String
    }

    static func model(store: any AdminStore, scale: LabelScale, session: AdminSession, now: Date) async throws -> Model {
        let totals = try await store.totals()
        return Model(
            chrome: PageChrome(title: "Dashboard", csrf: session.csrfToken, section: "dashboard"),
            venues: totals.venues, devices: totals.devices, checkins: totals.checkIns, samples: totals.samples,
            droppedShare: Formatting.share(totals.droppedSamples, of: totals.samples),
            outlierShare: Formatting.share(totals.outlierCheckIns, of: totals.checkIns),
            tooShortShare: Formatting.share(totals.tooShortCheckIns, of: totals.checkIns),
            recentVenues: try await store.recentVenues(limit: 5).map { VenueRow($0) },
            recentDevices: try await store.recentDevices(limit: 5).map(DeviceRow.init),
            latest: CheckInTable(checkInRows: try await store.recentCheckIns(limit: 5, rejectedOnly: false).map { CheckInRow($0, scale: scale) }),
            thrownOut: CheckInTable(checkInRows: try await store.recentCheckIns(limit: 5, rejectedOnly: true).map { CheckInRow($0, scale: scale) }),
            dailyChart: Charts.dailyBars(try await store.checkInsPerDay(days: 30, until: now)))
    }
}

enum VenuesPage {
    static let perPage = 25

    struct Option {
        let value: String
        let text: String
        let selected: Bool
    }

    struct Model {
        let chrome: PageChrome
        let search: String
        let loudest: Bool
        let window: String
        let days: [Option]
        let fromHours: [Option]
        let toHours: [Option]
        let venues: [VenueRow]
        let total: Int
        let page: Int
        let pages: Int
        let previousLink: String?
        let nextLink: String?
    }

    /// What the page lists: venues by name or id, or the loudest over some local hours.
    enum Listing {
        case search(String?)
        case loudest(LocalWindow)
    }

    static func model(store: any AdminStore, listing: Listing, page: Int, scale: LabelScale, session: AdminSession) async throws -> Model {
        let rows: [VenueRow]
        let total: Int
        var query: [URLQueryItem] = []
        var window = LocalWindow(weekday: 4, hours: 20...23)  // the form's default: Friday night
        var search: String?
        switch listing {
        case .search(let text):
            search = text
            let found = try await store.venues(search: text, offset: (page - 1) * perPage, limit: perPage)
            rows = found.venues.map { VenueRow($0) }
            total = found.total
            query = text.map { [URLQueryItem(name: "q", value: $0)] } ?? []
        case .loudest(let chosen):
            window = chosen
            let found = try await store.loudestVenues(in: chosen, offset: (page - 1) * perPage, limit: perPage)
            rows = found.venues.map { VenueRow($0.venue, level: $0.aggregate.levelDB, scale: scale) }
            total = found.total
            query = [
                URLQueryItem(name: "day", value: chosen.weekday.map { Weekday(index: $0).rawValue } ?? "any"),
                URLQueryItem(name: "from", value: "\(chosen.hours.lowerBound)"), URLQueryItem(name: "to", value: "\(chosen.hours.upperBound)"),
            ]
        }
        let pages = max(1, (total + perPage - 1) / perPage)
        func link(_ page: Int) -> String {
            var components = URLComponents()
            components.path = "/admin/venues"
            components.queryItems = query + [URLQueryItem(name: "page", value: "\(page)")]
            return components.string ?? "/admin/venues"
        }
        let loudest: Bool
        if case .loudest = listing { loudest = true } else { loudest = false }
        let dayName = window.weekday.map { Weekday(index: $0).rawValue.capitalized } ?? "Every day"
        return Model(
            chrome: PageChrome(title: "Venues", csrf: session.csrfToken, section: "venues"),
            search: search ?? "", loudest: loudest,
            window: "\(dayName), \(String(format: "%02d", window.hours.lowerBound)):00 to \(String(format: "%02d", window.hours.upperBound + 1)):00 local time",
            days: [Option(value: "any", text: "Every day", selected: window.weekday == nil)]
                + Weekday.allCases.map { Option(value: $0.rawValue, text: $0.rawValue.capitalized, selected: window.weekday == $0.index) },
            fromHours: (0..<24).map { Option(value: "\($0)", text: String(format: "%02d:00", $0), selected: $0 == window.hours.lowerBound) },
            toHours: (0..<24).map { Option(value: "\($0)", text: String(format: "%02d:59", $0), selected: $0 == window.hours.upperBound) },
            venues: rows, total: total, page: page, pages: pages,
            previousLink: page > 1 ? link(page - 1) : nil, nextLink: page < pages ? link(page + 1) : nil)
    }
}

enum VenuePage {
    struct Model {
        let chrome: PageChrome
        let id: String
        let name: String
        let latitude: String
        let longitude: String
        let timezone: String
        let heatmap: String
        let checkins: Int
        let usable: Int
        let outliers: Int
        let tooShort: Int
        let overall: String
        let overallLabel: String
        let spread: String
        let checkInRows: [CheckInRow]
        /// Who may change it through the API.
        let owner: String
        let history: [HistoryRow]
        /// The form's values: as stored, unformatted.
        let latitudeValue: String
        let longitudeValue: String
    }

    struct HistoryRow {
        let when: String
        let who: String
        let what: String
    }

    static func model(store: any AdminStore, id: String, scale: LabelScale, session: AdminSession) async throws -> Model? {
        guard let detail = try await store.venueDetail(id: id) else { return nil }
        let loudness = Loudness(venueID: id, aggregates: detail.aggregates, scale: scale)
        let usableLevels = detail.checkIns.filter { $0.status == .accepted }.compactMap(\.levelDB).sorted()
        return Model(
            chrome: PageChrome(title: detail.venue.name, csrf: session.csrfToken, section: "venues"),
            id: id, name: detail.venue.name, latitude: String(format: "%.5f", detail.venue.latitude),
            longitude: String(format: "%.5f", detail.venue.longitude), timezone: detail.venue.timezone,
            heatmap: Charts.heatmap(loudness, scale: scale),
            checkins: detail.checkIns.count, usable: usableLevels.count,
            outliers: detail.checkIns.filter { $0.status == .outlier }.count,
            tooShort: detail.checkIns.filter { $0.status == .tooShort }.count,
            overall: Formatting.level(loudness.overall.levelDB), overallLabel: loudness.overall.label ?? "",
            spread: spread(usableLevels), checkInRows: detail.checkIns.map { CheckInRow($0, scale: scale) },
            owner: detail.owner.map { "device \($0.wireString)" } ?? "no device (only operators may change it)",
            history: detail.history.map { HistoryRow(when: Formatting.utc($0.changedAt), who: $0.actor, what: describe($0)) },
            latitudeValue: "\(detail.venue.latitude)", longitudeValue: "\(detail.venue.longitude)")
    }

    /// A change in words: what was created, which fields went from what to what, what was merged.
    static func describe(_ change: VenueChange) -> String {
        switch change.action {
        case .create:
            guard let after = change.after else { return "created" }
            return "created “\(after.name)” at \(after.latitude), \(after.longitude) in \(after.timezone)"
        case .merge:
            return "merged venue \(change.before?.id ?? "?") (“\(change.before?.name ?? "")”) into this one"
        case .mergedInto:
            return "merged into another venue"
        case .update, .transfer:
            guard let before = change.before, let after = change.after else { return change.action.rawValue }
            var parts: [String] = []
            if before.name != after.name { parts.append("name “\(before.name)” → “\(after.name)”") }
            if before.latitude != after.latitude || before.longitude != after.longitude {
                parts.append("place \(before.latitude), \(before.longitude) → \(after.latitude), \(after.longitude)")
            }
            if before.timezone != after.timezone { parts.append("time zone \(before.timezone) → \(after.timezone)") }
            if before.owner != after.owner { parts.append("owner \(before.owner ?? "none") → \(after.owner ?? "none")") }
            return parts.isEmpty ? "no change" : parts.joined(separator: "; ")
        }
    }

    /// The middle half of the usable check-ins' levels (25th to 75th percentile).
    static func spread(_ sorted: [Double]) -> String {
        guard sorted.count >= 2 else { return "–" }
        func percentile(_ p: Double) -> Double {
            let position = p * Double(sorted.count - 1)
            let lower = Int(position.rounded(.down)), upper = Int(position.rounded(.up))
            return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
        }
        return String(format: "%.1f – %.1f dB(A) (middle half of usable check-ins)", percentile(0.25), percentile(0.75))
    }
}

enum CheckInPage {
    struct SampleRow {
        let t: String
        let avg: String
        let peak: String
        let dropped: Bool
    }

    struct EventRow {
        let t: String
        let peak: String
        let duration: String
    }

    struct Model {
        let chrome: PageChrome
        let checkIn: CheckInRow
        let localStart: String
        let timezone: String
        let calibration: String
        let reason: String
        let droppedReason: String?
        let chart: String
        let samples: [SampleRow]
        let events: [EventRow]
        let hasEvents: Bool
    }

    static func model(store: any AdminStore, id: UUID, scale: LabelScale, session: AdminSession) async throws -> Model? {
        guard let detail = try await store.checkInDetail(id: id) else { return nil }
        let verdict = try await store.outlierVerdict(checkIn: id)
        let calibration = detail.calibrationDB
        let timeZone = TimeZone(identifier: detail.timezone) ?? .gmt
        let events = detail.events.map {
            EventRow(t: Charts.format($0.t), peak: String(format: "%.1f dB", $0.peak + calibration), duration: Charts.format($0.durationS))
        }
        return Model(
            chrome: PageChrome(title: "Check-in at \(detail.listing.venueName)", csrf: session.csrfToken, section: "venues"),
            checkIn: CheckInRow(detail.listing, scale: scale),
            localStart: Formatting.local(detail.listing.startedAt, timeZone: timeZone), timezone: detail.timezone,
            calibration: String(format: "%.1f dB (%@)", calibration, detail.calibrationSource == .checkIn ? "from the device" : "server side"),
            reason: reason(detail.listing, verdict: verdict),
            droppedReason: detail.listing.droppedSamples == 0 ? nil
                : "\(detail.listing.droppedSamples) spike sample(s) dropped: each stood more than \(String(format: "%g × %g", Analysis.spikeSigmas, Analysis.madToSigma)) × MAD and \(String(format: "%g", Analysis.minimumSpikeDB)) dB away from the median of the \(2 * Analysis.spikeHalfWindow + 1) samples around it.",
            chart: Charts.session(detail),
            samples: detail.samples.map {
                SampleRow(t: Charts.format($0.sample.t), avg: Charts.format($0.sample.avg + calibration), peak: Charts.format($0.sample.peak + calibration), dropped: $0.dropped)
            },
            events: events, hasEvents: !events.isEmpty)
    }
}

extension CheckInPage {
    /// Why the check-in counts or not, in the analysis' own terms (docs/analysis.md).
    static func reason(_ checkIn: CheckInListing, verdict: OutlierVerdict?) -> String {
        let kept = checkIn.samples - checkIn.droppedSamples
        if checkIn.status == .tooShort {
            return "Too short: \(kept) samples kept after dropping spikes; a check-in needs \(Analysis.minimumKeptSamples) to count."
        }
        if checkIn.markedOutlier { return "Marked as an outlier by an operator: left out of the venue's loudness." }
        guard let verdict else { return "" }
        let scope = switch verdict.scope {
        case .sameWeekdayAndHour: "other check-ins at the same weekday and hour"
        case .sameHourAnyWeekday: "other check-ins at the same hour on any weekday (fewer than \(Analysis.minimumReferences) at this weekday and hour)"
        case .tooFewToDecide: ""
        }
        guard let median = verdict.median, let allowed = verdict.allowedDistance else {
            return "Counted: with \(verdict.references) comparable check-in(s) at this hour (fewer than \(Analysis.minimumReferences)), no outlier decision is made."
        }
        let comparison = "the median \(Formatting.level(median)) of \(verdict.references) \(scope)"
        let level = Formatting.level(checkIn.levelDB)
        return checkIn.status == .outlier
            ? "Outlier: \(level) is more than \(Charts.format(allowed)) dB from \(comparison). Left out of the venue's loudness."
            : "Counted: \(level) is within \(Charts.format(allowed)) dB of \(comparison)."
    }
}

enum DevicesPage {
    struct Model {
        let chrome: PageChrome
        let devices: [DeviceRow]
    }

    static func model(store: any AdminStore, session: AdminSession) async throws -> Model {
        Model(chrome: PageChrome(title: "Devices", csrf: session.csrfToken, section: "devices"), devices: try await store.devices().map(DeviceRow.init))
    }
}

enum CalibrationPage {
    struct Row {
        let model: String
        let offset: String
    }

    struct Model {
        let chrome: PageChrome
        let rows: [Row]
        let models: [String]
        let defaultCalibration: String
    }

    static func model(store: any AdminStore, settings: ServerSettings, session: AdminSession) async throws -> Model {
        let table = try await store.calibrations()
        return Model(
            chrome: PageChrome(title: "Calibration", csrf: session.csrfToken, section: "calibration"),
            rows: table.offsets.map { Row(model: $0.model, offset: Charts.format($0.offsetDB)) }, models: table.models,
            defaultCalibration: Charts.format(settings.defaultCalibrationDB))
    }
}

enum ScalePage {
    struct Band {
        let label: String
        let range: String
        let color: String
    }

    struct Model {
        let chrome: PageChrome
        let unit: String
        let bands: [Band]
    }

    static func model(scale: LabelScale, session: AdminSession) -> Model {
        var lower: Double?
        let bands = scale.bands.map { band -> Band in
            defer { lower = band.maxDB }
            let range: String
            switch (lower, band.maxDB) {
            case (nil, let high?): range = "up to \(Int(high))"
            case (let low?, let high?): range = "\(Int(low) + 1) to \(Int(high))"
            case (let low?, nil): range = "\(Int(low) + 1) and above"
            case (nil, nil): range = "every level"
            }
            return Band(label: band.label, range: range, color: Palette.swatch(forLabel: band.label, scale: scale).background)
        }
        return Model(chrome: PageChrome(title: "Label scale", csrf: session.csrfToken, section: "scale"), unit: scale.unit, bands: bands)
    }
}
