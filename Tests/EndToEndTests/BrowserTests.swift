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
        // The lists of many columns stay readable on a phone: one card per row, nothing wider than the screen.
        for page in ["devices", "venues"] {
            _ = try await render(adminURL.appendingPathComponent(page), name: page)
            let width = try await contentWidth(of: server.url.appendingPathComponent("admin/\(page)"), password: Self.password)
            #expect(width.viewport > 300 && width.content <= width.viewport, "the admin \(page) page is \(width.content) px wide in \(width.viewport)")
        }
        #expect(demoVenue.contains("<h2>Conversation</h2>") && demoVenue.contains("with hearing loss:"))
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

    /// The width the page's content takes in a 375 px viewport, tables scrolling in their boxes included: the page's HTML and public.css as
    /// the server sent them, in an iframe 375 px wide (headless Chromium's own window is never
    /// narrower than 500 px) whose parent writes the width into its title; served by a stub, as the
    /// server's pages allow no inline script.
    func contentWidth(of url: URL, password: String? = nil) async throws -> (content: Int, viewport: Int, widestCheckbox: Int) {
        // (viewport: the iframe's 375 px less its scroll bar.)
        var request = URLRequest(url: url)
        if let password { request.setValue("Basic " + Data("admin:\(password)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization") }
        let (data, _) = try await URLSession.shared.data(for: request)
        var page = String(decoding: data, as: UTF8.self)
        for sheet in ["public.css", "admin.css"] {
            let css = try String(contentsOf: Executable.packageFolder.appendingPathComponent("Public/\(sheet)"), encoding: .utf8)
            page = page.replacingOccurrences(of: #"<link rel="stylesheet" href="/public/\#(sheet)">"#, with: "<style>\(css)</style>")
        }
        // The stub serves no scripts: what the measuring page's script shows is shown without it.
        page = page.replacingOccurrences(of: #"data-seconds="300" hidden>"#, with: #"data-seconds="300">"#)
        let escaped = page.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
        // The width available is the iframe's less its vertical scroll bar (clientWidth); the width
        // taken, the page's or that of a table or box scrolling sideways inside it, whichever is wider.
        // And the widest checkbox: a field's full width made one a bar across the page.
        let measure = "var d = this.contentDocument; var w = d.documentElement.scrollWidth; d.querySelectorAll('.scroll, table').forEach(function (e) { w = Math.max(w, e.scrollWidth); }); var c = 0; d.querySelectorAll('input[type=checkbox]').forEach(function (e) { c = Math.max(c, Math.round(e.getBoundingClientRect().width)); }); document.title = 'width ' + w + ' in ' + d.documentElement.clientWidth + ' checkbox ' + c;"
        let wrapper = """
            <!doctype html><html><head><title>measuring</title></head><body style="margin:0">
            <iframe width="375" height="900" style="border:0" onload="\(measure)" srcdoc="\(escaped)"></iframe></body></html>
            """
        let stub = try StubServer(status: "200 OK", headers: ["Content-Type: text/html; charset=utf-8"], body: wrapper)
        let dom = try await chromium(["--window-size=1280,1600", "--dump-dom"], url: URL(string: stub.url + "/page")!)
        let title = try #require(dom.firstMatch(of: /<title>width (\d+) in (\d+) checkbox (\d+)<\/title>/), "\(dom.prefix(300))")
        return (Int(title.1) ?? .max, Int(title.2) ?? 0, Int(title.3) ?? .max)
    }

    /// A person types a name of two words into the public search and presses Search: the browser
    /// sends `q=Bloomsbury+Cafe`, where `+` is a space (the server once searched for a plus and
    /// found nothing). Driven through the form by chromium-driver (scripts/browser-form-search.py).
    @Test func aNameOfTwoWordsIsFoundThroughTheSearchForm() async throws {
        let database = folder.appendingPathComponent("demo.sqlite").path
        #expect(try await Executable.run("hearclear-server", ["seed", "--demo", "--database", database]).status == 0)
        let server = try await ServerProcess(database: database)
        let result = try await Executable.run(
            program: URL(fileURLWithPath: "/usr/bin/python3"),
            [Executable.packageFolder.appendingPathComponent("scripts/browser-form-search.py").path, server.url.absoluteString, "Bloomsbury Cafe"],
            environment: ["HOME": folder.path])
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("q=Bloomsbury+Cafe") == true, "the form sent \(lines.first ?? "nothing")")
        #expect(lines.dropFirst().map { $0.split(separator: " ", maxSplits: 1).last.map(String.init) ?? "" } == ["Bloomsbury Cafe"], "\(lines)")
        await server.stop()
    }

    /// A person at a place the search does not find adds it from the phone (scripts/browser-add-venue.py):
    /// search, "Not listed? Add it", a kind, "Add and measure", and the venue's measuring page opens;
    /// the venue is stored in the phone's time zone. The same name at the same place again is
    /// offered the first instead, and "Add mine anyway" adds another.
    @Test func aPlaceTheSearchDidNotFindIsAddedFromThePhone() async throws {
        let server = try await ServerProcess(database: folder.appendingPathComponent("add.sqlite").path)
        func add(_ options: [String]) async throws -> [String] {
            let result = try await Executable.run(
                program: URL(fileURLWithPath: "/usr/bin/python3"),
                [Executable.packageFolder.appendingPathComponent("scripts/browser-add-venue.py").path] + options
                    + [server.url.absoluteString, "Café Müller", "48.85661,2.35222", "cafe"],
                environment: ["HOME": folder.path, "TZ": "Asia/Tokyo"])
            #expect(result.status == 0, "\(result.errors)")
            return result.output.split(separator: "\n").map(String.init)
        }
        func measured(_ line: String?) throws -> String {
            let address = try #require(line.flatMap { $0.hasPrefix("measure ") ? URL(string: String($0.dropFirst("measure ".count))) : nil }, "\(line ?? "nothing")")
            #expect(address.path.hasPrefix("/venues/cafe-muller-") && address.path.hasSuffix("/measure"), "\(address)")
            return address.pathComponents[2]
        }
        let first = try measured(try await add([]).first)
        let (body, _) = try await URLSession.shared.data(from: server.url.appendingPathComponent("api/v1/venues/\(first)"))
        let venue = try JSONDecoder().decode(Venue.self, from: body)
        #expect(venue.name == "Café Müller" && venue.timezone == "Asia/Tokyo" && venue.kind == .cafe, "\(venue)")
        #expect(abs(venue.latitude - 48.85661) < 1e-6 && abs(venue.longitude - 2.35222) < 1e-6)

        let again = try await add(["--anyway"])
        #expect(again.first?.hasPrefix("matches ") == true && again.first?.contains("/venues/\(first)/measure Measure Café Müller") == true, "\(again)")
        let second = try measured(again.dropFirst().first)
        #expect(second != first)
        await server.stop()
    }

    /// The public pages, without login and without script, on the seeded demo: the search, a
    /// venue's grids as tables, in plain words; at 375 px nothing wider than the screen.
    @Test func thePublicPagesRenderForAnyoneAtPhoneAndDesktopWidths() async throws {
        let database = folder.appendingPathComponent("demo.sqlite").path
        #expect(try await Executable.run("hearclear-server", ["seed", "--demo", "--database", database]).status == 0)
        let server = try await ServerProcess(database: database)
        let venues = server.url.appendingPathComponent("venues")

        var near = URLComponents(url: venues, resolvingAgainstBaseURL: false)!
        near.queryItems = [URLQueryItem(name: "near", value: "-33.8708,151.2073")]
        let search = try await render(near.url!, name: "public-search")
        #expect(search.contains("<title>Find a venue · HearClear</title>"))
        #expect(search.components(separatedBy: #"<a href="/venues/sydney-"#).count - 1 == 12)
        // The script offered the browser's location: the button is there for those who have one.
        #expect(search.contains(#"id="locate""#))
        var ranked = near
        ranked.queryItems! += [URLQueryItem(name: "day", value: "friday"), URLQueryItem(name: "hour", value: "20")]
        let rankedSearch = try await render(ranked.url!, name: "public-search-ranked")
        #expect(rankedSearch.contains("<h2>Easiest conversation on Fridays at 20:00</h2>") && rankedSearch.contains(" voice, "), "\(rankedSearch)")

        let venue = try await render(venues.appendingPathComponent("london-3"), name: "public-venue")
        #expect(venue.contains("<title>The Crown &amp; Anchor · HearClear</title>"))
        #expect(venue.contains("Can you talk there?") && venue.contains("Quietest times"))
        #expect(venue.components(separatedBy: #"<td class="tone-"#).count - 1 > 20)
        #expect(venue.contains("expect to raise your voice"))
        #expect(venue.contains("Eight seconds in ten it is from ") && venue.contains("Mostly between"))
        #expect(!venue.contains("<script"))

        // Measuring: the meter shows once its script runs, and waits for a tap before asking for the microphone.
        let measure = try await render(venues.appendingPathComponent("london-3/measure"), name: "public-measure")
        #expect(measure.contains("<title>Measure The Crown &amp; Anchor · HearClear</title>"))
        #expect(measure.contains(#"<section id="meter" class="meter" aria-labelledby="meter-heading" data-venue="london-3" data-seconds="300">"#), "\(measure)")
        #expect(measure.contains(#"<button id="start" type="button">Start measuring</button>"#) && measure.contains("Not started"))

        let missing = try await render(venues.appendingPathComponent("nowhere"), name: "public-missing")
        #expect(missing.contains("<h1>Not Found</h1>") && missing.contains("There is no venue with the id “nowhere”"))
        #expect(!server.log.contains(" 404 ") || server.log.split(separator: "\n").filter { $0.contains(" 404 ") }.allSatisfy { $0.contains("/venues/nowhere") })

        for (url, name) in [
            (near.url!, "search"), (ranked.url!, "ranked search"), (venues.appendingPathComponent("london-3"), "venue"),
            (venues.appendingPathComponent("london-3/measure"), "measure"),
        ] {
            let width = try await contentWidth(of: url)
            #expect(width.viewport > 300 && width.content <= width.viewport, "the \(name) page is \(width.content) px wide in \(width.viewport)")
            // Was: the search's hearing-loss checkbox as wide as the name field, its words wrapped under it.
            #expect(width.widestCheckbox <= 44, "the \(name) page has a checkbox \(width.widestCheckbox) px wide")
        }
        for name in ["public-search", "public-search-ranked", "public-venue", "public-measure"] {
            for width in [375, 1280] {
                #expect(FileManager.default.fileExists(atPath: Self.screenshots.appendingPathComponent("\(name)-\(width).png").path))
            }
        }
    }
}
