import Foundation
import HearClearAnalysis
import HearClearCore
import Testing

@testable import HearClearServer

/// Each admin page rendered from fixed data (a venue, a device, three check-ins at fixed times) and
/// compared with the HTML kept in Snapshots/. A change to a page shows as a diff of its HTML: when it
/// is meant, record the pages again with `HEARCLEAR_RECORD_SNAPSHOTS=1 swift test --filter AdminSnapshotTests`
/// and read the diff before committing it.
@Suite struct AdminSnapshotTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")
    static let recording = ProcessInfo.processInfo.environment["HEARCLEAR_RECORD_SNAPSHOTS"] == "1"
    static let now = Timestamp.parse("2026-11-23T12:00:00Z")!

    /// The store with its fixed data, and the device id to replace (the store makes it at random).
    func fixture() async throws -> (TemporaryDatabase, UUID, UUID) {
        let database = try await TemporaryDatabase(.sqlite)
        let store = database.repository
        let registered = Self.now.addingTimeInterval(-10 * 86_400)
        let device = try await store.registerDevice(DeviceRegistration(model: "Snapshot Mic", platform: "linux"), tokenHash: Data([1, 2, 3]), at: registered)
        _ = try await store.saveVenue(
            id: "snap-bar", VenueUpsert(name: "The Snapshot Bar & Grill", latitude: 51.5, longitude: -0.12, timezone: "Europe/London"), by: device,
            at: registered)
        let ids = ["6f9619ff-8b86-d011-b42d-00c04fc964f1", "6f9619ff-8b86-d011-b42d-00c04fc964f2", "6f9619ff-8b86-d011-b42d-00c04fc964f3"]
        // Friday 2026-11-20 at 17:00, 20:00 and 21:00 in London (UTC in November).
        for (index, (hour, level, sil)) in [(17, -52.0, 45.0), (20, -42.0, 58.0), (21, -38.0, 63.0)].enumerated() {
            var checkIn = ConversationTests.withBands(
                makeCheckIn(venue: "snap-bar", start: "2026-11-20T\(hour):00:00Z", seconds: 60, level: level, id: UUID(uuidString: ids[index])!), sil: sil)
            // Talk before the band, music from 20:00.
            checkIn.samples = checkIn.samples.map { sample in
                var sample = sample
                sample.classes = hour < 20 ? SoundClasses(percent: 80, 10) : SoundClasses(percent: 40, 90)
                return sample
            }
            _ = try await store.storeCheckIn(checkIn, contentHash: CheckInController.contentHash(checkIn), by: device, at: checkIn.startedAt.addingTimeInterval(600))
        }
        return (database, device, UUID(uuidString: ids[1])!)
    }

    @Test func everyAdminPageRendersAsRecorded() async throws {
        let (database, device, checkIn) = try await fixture()
        let store = database.repository
        let templates = try await PageTemplates.load(requiring: AdminController.templateNames)
        let session = AdminSession(id: "session", csrfToken: "csrf-token")
        let scale = LabelScale.standard
        let pages: [(String, String, Any)] = [
            ("dashboard", "dashboard", try await DashboardPage.model(store: store, scale: scale, session: session, now: Self.now)),
            ("venues", "venues", try await VenuesPage.model(store: store, listing: .search(nil), page: 1, scale: scale, session: session)),
            ("venues-loudest", "venues", try await VenuesPage.model(store: store, listing: .loudest(LocalWindow(weekday: 4, hours: 20...23)), page: 1, scale: scale, session: session)),
            ("venue", "venue", try #require(try await VenuePage.model(store: store, id: "snap-bar", scale: scale, rules: .standard, session: session))),
            ("checkin", "checkin", try #require(try await CheckInPage.model(store: store, id: checkIn, scale: scale, session: session))),
            ("devices", "devices", try await DevicesPage.model(store: store, session: session)),
            ("calibration", "calibration", try await CalibrationPage.model(store: store, settings: ServerSettings(), session: session)),
            ("scale", "scale", ScalePage.model(scale: scale, session: session)),
        ]
        for (name, template, model) in pages {
            let html = try templates.html(template, model).replacingOccurrences(of: device.wireString, with: "DEVICE-ID")
            let file = Self.folder.appendingPathComponent("admin-\(name).html")
            if Self.recording {
                try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
                try Data(html.utf8).write(to: file)
                continue
            }
            let recorded = try? String(contentsOf: file, encoding: .utf8)
            #expect(recorded != nil, "no snapshot of the \(name) page: record it with HEARCLEAR_RECORD_SNAPSHOTS=1")
            guard let recorded else { continue }
            if html != recorded {
                let lines = zip(html.split(separator: "\n", omittingEmptySubsequences: false), recorded.split(separator: "\n", omittingEmptySubsequences: false))
                let first = lines.enumerated().first { $0.element.0 != $0.element.1 }
                Issue.record("the \(name) page differs from Snapshots/admin-\(name).html, first at line \((first?.offset ?? 0) + 1):\nnow:  \(first?.element.0 ?? "")\nwas:  \(first?.element.1 ?? "")")
            }
        }
    }
}
