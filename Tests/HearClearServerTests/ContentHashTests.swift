import Foundation
import HearClearCore
import Testing

@testable import HearClearServer

/// The content hash tells a retry from a conflict, also for a check-in stored by an earlier
/// release: its value for a given check-in never changes.
struct ContentHashTests {
    @Test func aCheckInHashesAsEveryReleaseHashedIt() {
        var checkIn = CheckIn(
            id: UUID(uuidString: "6F1C2B9E-3D4A-4C5B-8E7F-0A1B2C3D4E5F")!, venueID: "bistro", startedAt: Date(timeIntervalSince1970: 1_790_000_000),
            calibrationDB: 110,
            samples: (0..<3).map { Sample(t: Double($0), avg: -40.5 + Double($0), peak: -20) },
            events: [LoudEvent(t: 1, peak: -3, durationS: 1)])
        let hex = { (data: Data) in data.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(CheckInController.contentHash(checkIn)) == "2db8bdc394eb41a7d284f0e581ff9ea80917047484e8c4b66b50ddc44a5f193b")
        checkIn.samples = checkIn.samples.map { sample in
            Sample(
                t: sample.t, avg: sample.avg, peak: sample.peak,
                details: LevelDetails(fastMax: sample.avg + 1, cAvg: sample.avg + 4, octaves: [-50, -51, -52, -53]),
                classes: SoundClasses(percent: 30, 60))
        }
        checkIn.events[0].sound = .music
        #expect(hex(CheckInController.contentHash(checkIn)) == "4904b0aa608a2091edcfa333467255b2f5ec41c42f206552c7c7fcd9da2daf3b")
    }
}
