import Foundation
import LoopbackHTTP
import HearClearCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The admin pages in a real browser (headless Chromium) on the seeded demo: the DOM as rendered,
/// and screenshots at phone and desktop widths kept in .build/screenshots for people to look at.
@Suite struct BrowserTests {
    static let chromium = URL(fileURLWithPath: "/usr/bin/chromium")
    static let screenshots = Executable.packageFolder.appendingPathComponent(".build/screenshots")
    static let password = "browser-check-password"
    static let hostileName = #"<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>"#

    let folder: URL

    init() throws {
        folder = try temporaryFolder()
        try FileManager.default.createDirectory(at: Self.screenshots, withIntermediateDirectories: true)
    }

    func chromium(_ arguments: [String], url: URL) async throws -> String {
        let result = try await Executable.run(
            program: Self.chromium,
            ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(folder.appendingPathComponent("profile").path)", "--virtual-time-budget=5000"]
                + arguments + [url.absoluteString],
            environment: ["HOME": folder.path])
        #expect(result.status == 0, "\(result.errors)")
        return result.output
    }

    /// The page's DOM after it rendered, and screenshots of it at 375 and 1280 pixels wide.
    func render(_ url: URL, name: String) async throws -> String {
        for width in [375, 1280] {
            // A screenshot left by an earlier run must not pass for this one's.
            try? FileManager.default.removeItem(at: Self.screenshots.appendingPathComponent("\(name)-\(width).png"))
            _ = try await chromium(["--window-size=\(width),1600", "--screenshot=\(Self.screenshots.appendingPathComponent("\(name)-\(width).png").path)"], url: url)
        }
        return try await chromium(["--window-size=1280,1600", "--dump-dom"], url: url)
    }

    func send(_ method: String, _ url: URL, token: String? = nil, json: String) async throws -> Data {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.httpBody = Data(json.utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((200..<300).contains((response as? HTTPURLResponse)?.statusCode ?? 0), "\(method) \(url): \(String(decoding: data, as: UTF8.self))")
        return data
    }

    @Test func theSeededDashboardVenueAndCheckInPagesRender() async throws {
        let database = folder.appendingPathComponent("demo.sqlite").path
        let seeded = try await Executable.run("hearclear-server", ["seed", "--demo", "--database", database])
        #expect(seeded.status == 0, "\(seeded.errors)")
        let server = try await ServerProcess(database: database, environment: ["HEARCLEAR_ADMIN_PASSWORD": Self.password])

        // A venue whose name tries to run a script.
        let api = server.url.appendingPathComponent("api/v1")
        let credentials = try JSONDecoder().decode(
            DeviceCredentials.self, from: try await send("POST", api.appendingPathComponent("devices"), json: #"{"model": "Browser Check", "platform": "linux"}"#))
        let venue = try JSONEncoder().encode(VenueUpsert(name: Self.hostileName, latitude: 0, longitude: 0, timezone: "UTC"))
        _ = try await send("PUT", api.appendingPathComponent("venues/hostile"), token: credentials.token, json: String(decoding: venue, as: UTF8.self))
        let samples = (0..<60).map { Sample(t: Double($0), avg: -45, peak: -30) }
        let checkIn = try JSONEncoder().encode(CheckIn(id: UUID(), venueID: "hostile", startedAt: Date().addingTimeInterval(-3600), samples: samples))
        _ = try await send("POST", api.appendingPathComponent("checkins"), token: credentials.token, json: String(decoding: checkIn, as: UTF8.self))

        var admin = URLComponents(url: server.url.appendingPathComponent("admin"), resolvingAgainstBaseURL: false)!
        admin.user = "admin"
        admin.password = Self.password
        let adminURL = admin.url!

        let dashboard = try await render(adminURL, name: "dashboard")
        #expect(dashboard.contains("<title>Dashboard · HearClear admin</title>"))
        #expect(dashboard.contains(#"<svg class="chart daily""#))
        #expect(dashboard.contains(#"<span class="number">37</span> venues"#))

        let venuePage = try await render(adminURL.appendingPathComponent("venues/hostile"), name: "venue")
        #expect(venuePage.components(separatedBy: #"<rect class="cell"#).count - 1 == 168)
        #expect(!venuePage.contains("pwned</title>") && !venuePage.contains("<title>pwned"))
        #expect(!venuePage.contains("<script") && !venuePage.contains("<img src"))
        #expect(venuePage.contains("&lt;script&gt;document.title='pwned'&lt;/script&gt;"))

        let demoVenue = try await render(adminURL.appendingPathComponent("venues/london-3"), name: "venue-demo")
        let link = try #require(demoVenue.range(of: #"href="/admin/checkins/"#))
        let checkInID = String(demoVenue[link.upperBound...].prefix(36))
        let checkInPage = try await render(adminURL.appendingPathComponent("checkins/\(checkInID)"), name: "checkin")
        #expect(checkInPage.contains(#"<svg class="chart session""#))
        #expect(checkInPage.contains(#"<polyline class="avg""#) && checkInPage.contains(#"<polyline class="peak""#))
        #expect(checkInPage.contains("Mark as outlier"))
        // Every page and what it links to (stylesheet, icon) was found.
        #expect(!server.log.contains(" 404 "), "\(server.log.split(separator: "\n").filter { $0.contains(" 404 ") })")
        for name in ["dashboard", "venue", "checkin"] {
            for width in [375, 1280] {
                #expect(FileManager.default.fileExists(atPath: Self.screenshots.appendingPathComponent("\(name)-\(width).png").path))
            }
        }
    }
}
