import Foundation
import HearClearAnalysis
import HearClearCore

/// A realistic demo for an empty database, stored through the same ingest code as the API: venues
/// in three time zones with weekly rhythms, devices, and a few spikes, short and outlying check-ins.
/// Every device but the oldest client (the iPhone's, API v1) measures the details too: the Fast
/// maximum, C and the octave bands, in the spectrum of its kind of venue; and speech and music,
/// music leading in bars from 21:00 and in clubs, talk elsewhere.
/// The same every time (a fixed random seed), relative to `now`: the dates move with it, each
/// check-in's local weekday and hour do not.
public enum DemoData {
    public struct NotEmpty: Error, CustomStringConvertible {
        public let description = "the database already holds venues: the demo only fills an empty one"
    }

    public struct Summary: Sendable {
        public var venues = 0
        public var devices = 0
        public var checkIns = 0
    }

    struct City {
        let name: String
        let timezone: String
        let latitude: Double
        let longitude: Double
        let places: [(name: String, kind: Kind)]
    }

    /// The kinds the demo has, of `VenueKind`'s, with how they sound.
    enum Kind: String {
        case cafe, restaurant, bar, club

        var venueKind: VenueKind { VenueKind(rawValue: rawValue)! }

        /// Typical level in dB(A) at the busiest time, and the opening hours (local, end exclusive).
        var busyLevel: Double {
            switch self {
            case .cafe: 66
            case .restaurant: 72
            case .bar: 79
            case .club: 88
            }
        }

        /// C − A, and each octave band (500 Hz … 4 kHz) against the A level, dB: talk in cafés and
        /// restaurants, music with more bass in bars and clubs.
        var spectrum: (cMinusA: Double, bands: [Double]) {
            switch self {
            case .cafe: (4, [-4, -5, -8, -12])
            case .restaurant: (5, [-4, -5, -8, -13])
            case .bar: (8, [-4, -6, -9, -13])
            case .club: (12, [-4, -6, -10, -14])
            }
        }

        var hours: Range<Int> {
            switch self {
            case .cafe: 7..<17
            case .restaurant: 12..<23
            case .bar: 16..<24
            case .club: 21..<24
            }
        }
    }

    static let cities = [
        City(name: "sydney", timezone: "Australia/Sydney", latitude: -33.8708, longitude: 151.2073, places: [
            ("Harbour Espresso", .cafe), ("The Reading Room Cafe", .cafe), ("Laneway Dumplings", .restaurant),
            ("Surry Hills Trattoria", .restaurant), ("Bondi Fish Kitchen", .restaurant), ("The Rocks Tavern", .bar),
            ("Newtown Social", .bar), ("Darling Dockside Bar", .bar), ("Oxford St Basement", .club), ("Quiet Table Dining", .restaurant),
            ("Glebe Book Cafe", .cafe), ("Kings Cross Lounge", .club),
        ]),
        City(name: "london", timezone: "Europe/London", latitude: 51.5074, longitude: -0.1278, places: [
            ("Borough Market Coffee", .cafe), ("Soho Noodle Bar", .restaurant), ("The Crown & Anchor", .bar),
            ("Shoreditch Warehouse", .club), ("Covent Garden Bistro", .restaurant), ("Camden Lock Tap", .bar),
            ("Brixton Jazz Cellar", .bar), ("Marylebone Tea Rooms", .cafe), ("Hackney Pizza Co", .restaurant),
            ("The Library Bar", .bar), ("Dalston Disco", .club), ("Bloomsbury Cafe", .cafe),
        ]),
        City(name: "newyork", timezone: "America/New_York", latitude: 40.7306, longitude: -73.9866, places: [
            ("East Village Bagels", .cafe), ("Bowery Steakhouse", .restaurant), ("Lower East Side Dive", .bar),
            ("Williamsburg Hall", .club), ("Chelsea Market Diner", .restaurant), ("Tribeca Wine Room", .bar),
            ("Greenwich Village Coffee", .cafe), ("Midtown Ramen", .restaurant), ("Brooklyn Beer Garden", .bar),
            ("SoHo Supper Club", .club), ("Harlem Soul Kitchen", .restaurant), ("The Quiet Corner", .cafe),
        ]),
    ]

    static let deviceModels: [(model: String, platform: String, calibration: Double?, details: Bool)] = [
        ("Pixel 8", "android", nil, true), ("MacBook Air M2", "macos", 108.5, true), ("ReSpeaker USB Mic Array", "raspberrypi", 113, true),
        ("ThinkPad X1 Carbon", "linux", nil, true), ("Raspberry Pi 4 + Blue Yeti", "raspberrypi", 104, true), ("iPhone 15", "ios", nil, false),
    ]

    /// `defaultCalibrationDB` is the one the store applies to check-ins without their own, so that
    /// the levels come out as planned.
    public static func seed(into repository: any AdminStore, defaultCalibrationDB: Double, now: Date) async throws -> Summary {
        guard try await repository.totals().venues == 0 else { throw NotEmpty() }
        var random = SplitMix64(seed: 2026)
        // The details draw from their own generator, so the levels are those of the demo before them.
        var spectrum = SplitMix64(seed: 9921)
        var sounds = SplitMix64(seed: 1414)
        var summary = Summary()
        var devices: [(id: UUID, calibration: Double?, details: Bool)] = []
        for device in deviceModels {
            let id = try await repository.registerDevice(
                DeviceRegistration(model: device.model, platform: device.platform), tokenHash: DeviceToken.hash(DeviceToken.generate()),
                at: now.addingTimeInterval(-35 * 86_400))
            devices.append((id, device.calibration, device.details))
        }
        summary.devices = devices.count

        for city in cities {
            let zone = TimeZone(identifier: city.timezone)!
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let today = WeekdayHour(now, in: zone).weekday.index
            for (index, place) in city.places.enumerated() {
                let id = "\(city.name)-\(index + 1)"
                let venue = VenueUpsert(
                    name: place.name, latitude: city.latitude + random.uniform(-0.02, 0.02),
                    longitude: city.longitude + random.uniform(-0.02, 0.02), timezone: city.timezone, kind: place.kind.venueKind)
                _ = try await repository.saveVenue(id: id, venue, by: devices[0].id, at: now.addingTimeInterval(-30 * 86_400))
                summary.venues += 1

                for _ in 0..<(14 + Int(random.next() % 14)) {
                    let device = devices[Int(random.next() % UInt64(devices.count))]
                    // One of the last 28 days, drawn as a weekday and a week: the same draw gives
                    // the same local weekday whatever day the demo is seeded on, so every venue's
                    // week (and what the pages say of "Fridays at 20:00") stays the same.
                    let drawn = Int(random.next() % 28)
                    let hour = place.kind.hours.lowerBound + Int(random.next() % UInt64(place.kind.hours.count))
                    let daysAgo = (today - drawn % 7 + 6) % 7 + 1 + 7 * (drawn / 7)
                    guard let day = calendar.date(byAdding: .day, value: -daysAgo, to: calendar.startOfDay(for: now)),
                        let start = calendar.date(byAdding: .minute, value: hour * 60 + Int(random.next() % 40), to: day)
                    else { continue }
                    let weekday = WeekdayHour(start, in: zone).weekday.index
                    var checkIn = makeCheckIn(
                        venue: id, start: start, kind: place.kind, weekday: weekday, hour: hour, calibration: device.calibration,
                        defaultCalibration: defaultCalibrationDB, random: &random)
                    if device.details {
                        addDetails(to: &checkIn, kind: place.kind, random: &spectrum)
                        addClasses(to: &checkIn, kind: place.kind, hour: hour, random: &sounds)
                    }
                    _ = try await repository.storeCheckIn(
                        checkIn, contentHash: CheckInController.contentHash(checkIn), by: device.id, at: start.addingTimeInterval(600))
                    summary.checkIns += 1
                }
            }
        }
        return summary
    }

    /// A session whose level follows the venue's week: busier on Friday and Saturday evenings and
    /// at lunch; now and then a spike, a check-in cut short, or one far louder than usual.
    static func makeCheckIn(
        venue: String, start: Date, kind: Kind, weekday: Int, hour: Int, calibration: Double?, defaultCalibration: Double,
        random: inout SplitMix64
    ) -> CheckIn {
        var level = kind.busyLevel - 6
        if weekday >= 4 && hour >= 18 { level += 6 }
        if (12...13).contains(hour) { level += 3 }
        if weekday <= 1 { level -= 2 }
        let roll = random.next() % 100
        if roll < 4 { level += 20 }  // an outlier: a party, a faulty microphone
        let seconds = roll >= 4 && roll < 8 ? 8 + Int(random.next() % 6) : 120 + Int(random.next() % 180)
        let offset = calibration ?? defaultCalibration
        var samples: [Sample] = []
        var events: [LoudEvent] = []
        for second in 0..<seconds {
            var spl = level + random.uniform(-3, 3) + 2 * sin(Double(second) / 20)
            if random.next() % 150 == 0 { spl += 25 }  // a dropped glass
            let avg = min(-1, spl - offset)
            let peak = min(0, avg + 10 + random.uniform(0, 8))
            samples.append(Sample(t: Double(second), avg: (avg * 100).rounded() / 100, peak: (peak * 100).rounded() / 100))
            if peak + offset >= 85, events.last.map({ Double(second) - $0.t >= 20 }) ?? true {
                events.append(LoudEvent(t: Double(second), peak: (peak * 100).rounded() / 100, durationS: 1))
            }
        }
        return CheckIn(
            id: random.uuid(),
            venueID: venue, startedAt: start, calibrationDB: calibration, samples: samples, events: events)
    }
}

extension DemoData {
    /// Each second's Fast maximum, C and bands, from its A level and its kind of venue's spectrum,
    /// a little different every second; within what a meter can read (at most 0 dBFS).
    static func addDetails(to checkIn: inout CheckIn, kind: Kind, random: inout SplitMix64) {
        let spectrum = kind.spectrum
        func level(_ value: Double) -> Double { min(0, (value * 10).rounded() / 10) }
        checkIn.samples = checkIn.samples.map { sample in
            var sample = sample
            sample.details = LevelDetails(
                fastMax: level(sample.avg + random.uniform(0.5, 4)), cAvg: level(sample.avg + spectrum.cMinusA + random.uniform(-1, 1)),
                octaves: spectrum.bands.map { level(sample.avg + $0 + random.uniform(-1.5, 1.5)) })
            return sample
        }
    }
}

extension DemoData {
    /// Each second's speech and music, as the meter's classifier would give them: music leading in
    /// clubs and in bars from 21:00, speech elsewhere, both now and then.
    static func addClasses(to checkIn: inout CheckIn, kind: Kind, hour: Int, random: inout SplitMix64) {
        let musicLed = kind == .club || (kind == .bar && hour >= 21)
        checkIn.samples = checkIn.samples.map { sample in
            var sample = sample
            let music = musicLed ? random.uniform(0.45, 1) : random.uniform(0, 0.55)
            let speech = musicLed ? random.uniform(0, 0.6) : random.uniform(0.4, 1)
            sample.classes = SoundClasses(speech: speech, music: music).rounded
            return sample
        }
        let samples = checkIn.samples
        checkIn.events = checkIn.events.map { event in
            var event = event
            event.sound = SoundClasses.dominant(samples.filter { $0.t >= event.t && $0.t < event.t + event.durationS }.map(\.classes))
            return event
        }
    }
}
