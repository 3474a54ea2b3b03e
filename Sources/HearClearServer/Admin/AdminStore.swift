import Foundation
import HearClearAnalysis
import HearClearCore

/// What the admin pages read and change, besides what the API does (deleting a device). Like
/// `Repository`, a protocol so that another store can serve the same pages; every change keeps the
/// loudness aggregates in step in its transaction.
public protocol AdminStore: Repository {
    func totals() async throws -> AdminTotals
    /// Everything the dashboard shows, in one read: the totals, the `recent` latest venues, devices,
    /// check-ins and check-ins left out, and the check-ins received per UTC day over the `days` days up to `now`.
    func dashboard(recent: Int, days: Int, until now: Date) async throws -> AdminDashboard
    /// Venues whose name or id contains `search`, latest check-in first; and how many match.
    func venues(search: String?, offset: Int, limit: Int) async throws -> (venues: [VenueListing], total: Int)
    /// Venues by their level over some local weekday-hours, loudest first (those without data there left out).
    /// Venues with data in a window of local hours, loudest first, each with its level over the
    /// whole window (the energy mean of its cells there): a level, not a cell, since the window
    /// spans hours, and no count of check-ins, which per-hour counts cannot give for a window.
    func loudestVenues(in window: LocalWindow, offset: Int, limit: Int) async throws -> (venues: [(venue: VenueListing, levelDB: Double)], total: Int)
    func venueDetail(id: String) async throws -> VenueDetail?
    /// A check-in with its samples, events and the outlier rule's verdict on it, in one read.
    func checkInDetail(id: UUID) async throws -> CheckInDetail?
    func devices() async throws -> [DeviceListing]
    /// The calibration table, the device models seen, and the calibrations devices brought of their own.
    func calibrations() async throws -> CalibrationTable

    /// Marks a check-in as an outlier (or clears the mark); `false` when there is no such check-in.
    func setOutlierMark(checkIn: UUID, marked: Bool) async throws -> Bool
    /// Bans a device (its check-ins leave every aggregate, its writes answer 403) or lifts the ban.
    func setBanned(device: UUID, banned: Bool) async throws -> Bool
    /// Sets (or, with `nil`, removes) a model's calibration, recalibrating the check-ins it applies to.
    func setCalibration(model: String, offsetDB: Double?, at now: Date) async throws

    /// Changes any venue (a new time zone places its check-ins again); `false` when there is no such venue.
    func editVenue(id: String, _ venue: VenueUpsert, at now: Date) async throws -> Bool
    /// Gives a venue to another device, which may then change it through the API.
    func transferVenue(id: String, to device: UUID, at now: Date) async throws -> VenueAdminOutcome
    /// Merges a duplicate venue into another: its check-ins move, aggregates follow, its id leads there.
    func mergeVenue(id: String, into target: String, at now: Date) async throws -> VenueAdminOutcome
}

/// What a change did to a venue, as `venue_change.action` stores it.
public enum VenueChangeAction: String, Codable, Sendable {
    case create, update, transfer, merge
    /// The venue was merged into another, which kept the record's `venue_id` as an alias.
    case mergedInto = "merged_into"
}

/// Local weekday (nil: every weekday) and hours (`hours.lowerBound` to `hours.upperBound`, inclusive).
public struct LocalWindow: Sendable, Equatable {
    public var weekday: Int?
    public var hours: ClosedRange<Int>
}

public struct AdminDashboard: Sendable {
    public var totals: AdminTotals
    public var recentVenues: [VenueListing]
    public var recentDevices: [DeviceListing]
    public var recentCheckIns: [CheckInListing]
    /// The latest of those left out of the aggregates (outliers, too short).
    public var leftOutCheckIns: [CheckInListing]
    /// Check-ins received per UTC day, oldest first, zeros included.
    public var perDay: [(day: Date, count: Int)]
}

public struct AdminTotals: Sendable, Equatable {
    public var venues = 0
    public var devices = 0
    public var checkIns = 0
    public var samples = 0
    public var droppedSamples = 0
    public var outlierCheckIns = 0
    public var tooShortCheckIns = 0
}

public struct VenueListing: Sendable, Equatable {
    public var id: String
    public var name: String
    public var timezone: String
    public var checkIns: Int
    public var latestCheckIn: Date?
}

public struct DeviceListing: Sendable, Equatable {
    public var id: UUID
    public var model: String
    public var platform: String
    public var banned: Bool
    public var firstSeen: Date
    public var lastSeen: Date
    public var checkIns: Int
    public var outliers: Int
}

public struct CheckInListing: Sendable, Equatable {
    public var id: UUID
    public var venueID: String
    public var venueName: String
    public var deviceID: UUID
    public var deviceModel: String
    public var startedAt: Date
    public var receivedAt: Date
    public var samples: Int
    public var droppedSamples: Int
    public var levelDB: Double?
    public var status: CheckInStatus
    public var markedOutlier: Bool
    /// Whether its device is banned: its check-ins keep their status but count nowhere.
    public var deviceBanned: Bool

    /// Whether it counts in the venue's answers (`Analysis.counts`).
    public var counts: Bool { Analysis.counts(status: status, deviceBanned: deviceBanned) }
}

public struct VenueDetail: Sendable {
    public var id: String
    public var venue: VenueUpsert
    /// The device that may change it through the API; nil when only operators may.
    public var owner: UUID?
    public var aggregates: [LoudnessAggregate]
    /// Latest first.
    public var checkIns: [CheckInListing]
    /// Every change, latest first.
    public var history: [VenueChange]
}

/// One change to a venue: who (`device:<id>`, `admin` or `deleted device`), when, and the venue
/// before and after (`before` of a merge is the venue merged in).
public struct VenueChange: Sendable, Equatable {
    public var changedAt: Date
    public var actor: String
    public var action: VenueChangeAction
    public var before: VenueSnapshot?
    public var after: VenueSnapshot?
}

public struct CheckInDetail: Sendable {
    public var listing: CheckInListing
    public var timezone: String
    public var intervalS: Double
    public var calibrationDB: Double
    public var calibrationSource: CalibrationSource
    public var samples: [(sample: Sample, dropped: Bool)]
    public var events: [LoudEvent]
    /// The outlier rule's verdict right now, with what it was compared with; nil when the rule does
    /// not judge it (too short).
    public var verdict: OutlierVerdict?
}
