import Foundation
import HearClearCore

/// What a cell's figures rest on besides their sample count: how many check-ins, from how many
/// devices, on how many of the venue's local days, and the newest of those days. `confidence` is
/// decided from it (docs/analysis.md), so that five check-ins from one phone in one evening do not
/// read like five evenings measured by different people.
public struct CellEvidence: Sendable, Equatable {
    public var checkins: Int
    public var devices: Int
    public var days: Int
    /// The venue's local date of the newest check-in, as days since 1970-01-01.
    public var lastDay: Int
    /// The versions of the speech and music model that classified its check-ins, oldest first, of
    /// those whose client said (docs/sound-classes.md, "Model versions in the shares").
    public var classesModels: [Int]

    public init(checkins: Int, devices: Int, days: Int, lastDay: Int, classesModels: [Int] = []) {
        self.checkins = checkins
        self.devices = devices
        self.days = days
        self.lastDay = lastDay
        self.classesModels = classesModels
    }

    /// A check-in that counts (`Analysis.counts`), as the evidence needs it: who, when, with which
    /// model's classes, and the local hours it kept samples in.
    public struct CheckIn: Sendable, Equatable {
        public var device: String
        public var startedAt: TimeInterval
        public var classesModel: Int?
        public var hours: [LocalHour]

        public init(device: String, startedAt: TimeInterval, classesModel: Int? = nil, hours: [LocalHour]) {
            self.device = device
            self.startedAt = startedAt
            self.classesModel = classesModel
            self.hours = hours
        }
    }

    /// The evidence of every cell the check-ins cover, marginals included (a check-in counts once
    /// in each span, as in the aggregates).
    public static func cells(from checkIns: [CheckIn], clock: VenueClock) -> [LocalHour: CellEvidence] {
        var devices: [LocalHour: Set<String>] = [:], days: [LocalHour: Set<Int>] = [:], counts: [LocalHour: Int] = [:]
        var models: [LocalHour: Set<Int>] = [:]
        for checkIn in checkIns {
            var spans: [LocalHour: Int] = [:]
            for hour in checkIn.hours {
                let day = clock.localDay(of: hour, from: checkIn.startedAt)
                for span in [
                    hour, LocalHour(weekday: hour.weekday, hour: LoudnessAggregate.everyHour),
                    LocalHour(weekday: LoudnessAggregate.everyWeekday, hour: hour.hour),
                    LocalHour(weekday: LoudnessAggregate.everyWeekday, hour: LoudnessAggregate.everyHour),
                ] {
                    spans[span] = max(spans[span] ?? day, day)
                    days[span, default: []].insert(day)
                }
            }
            for span in spans.keys {
                counts[span, default: 0] += 1
                devices[span, default: []].insert(checkIn.device)
                if let model = checkIn.classesModel { models[span, default: []].insert(model) }
            }
        }
        return counts.reduce(into: [:]) { cells, entry in
            let span = entry.key
            cells[span] = CellEvidence(
                checkins: entry.value, devices: devices[span]?.count ?? 0, days: days[span]?.count ?? 0, lastDay: days[span]?.max() ?? 0,
                classesModels: (models[span] ?? []).sorted())
        }
    }

    /// high: 5 or more check-ins from 2 or more devices on 3 or more days, the newest within a year;
    /// medium: 2 or more check-ins from 2 devices or on 2 days, the newest within two years; low:
    /// anything else measured. `today` is days since 1970-01-01.
    public func confidence(today: Int) -> Confidence {
        let age = today - lastDay
        if checkins >= 5 && devices >= 2 && days >= 3 && age <= 365 { return .high }
        if checkins >= 2 && (devices >= 2 || days >= 2) && age <= 730 { return .medium }
        return checkins > 0 ? .low : .none
    }

    /// The newest day as a date, `2026-11-20`.
    public var lastMeasured: String {
        let date = Date(timeIntervalSince1970: Double(lastDay) * 86_400)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }
}
