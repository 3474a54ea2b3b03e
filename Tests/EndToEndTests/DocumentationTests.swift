import Foundation
import HearClearServer
import Testing

/// What the README and docs/ name must exist, so the next drift between them and the code fails a
/// test instead of misleading a reader: every `make` target, every environment variable, every
/// key of the config file's example, every file they link to.
@Suite struct DocumentationTests {
    static let folder = Executable.packageFolder

    /// The README and every page of docs/, by name.
    static func documents() throws -> [(name: String, text: String)] {
        let docs = folder.appendingPathComponent("docs")
        let pages = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }.sorted()
        let files: [(name: String, url: URL)] = [("README.md", folder.appendingPathComponent("README.md"))] + pages.map { ("docs/\($0)", docs.appendingPathComponent($0)) }
        return try files.map { file in (file.name, try String(contentsOf: file.url, encoding: .utf8)) }
    }

    static func source(_ path: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func everyMakeTargetNamedExists() throws {
        let makefile = try Self.source("Makefile")
        // A rule's line names one target or several (`train-classes judge-classes:`).
        let targets = Set(makefile.split(separator: "\n").flatMap { line in
            line.firstMatch(of: /^([a-z][a-z -]*):/).map { $0.1.split(separator: " ").map(String.init) } ?? []
        })
        #expect(targets.contains("test") && targets.contains("run"))
        var named = 0
        for (name, text) in try Self.documents() {
            for match in text.matches(of: /`make ([a-z][a-z-]*)/) {
                named += 1
                #expect(targets.contains(String(match.1)), "\(name) names `make \(match.1)`, which the Makefile does not define")
            }
        }
        #expect(named > 10)
    }

    @Test func everyEnvironmentVariableNamedIsRead() throws {
        // Where variables are read: the programs, and the test suites for the tests' own.
        var readers = ""
        for folder in ["Sources", "Tests"] {
            let root = Self.folder.appendingPathComponent(folder)
            for case let file as String in FileManager.default.enumerator(atPath: root.path) ?? .init() where file.hasSuffix(".swift") {
                readers += try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            }
        }
        var named = Set<String>()
        for (name, text) in try Self.documents() {
            for match in text.matches(of: /\b(HEARCLEAR_[A-Z_]+|LOG_LEVEL)\b/) {
                named.insert(String(match.1))
                #expect(readers.contains("\"\(match.1)\""), "\(name) names \(match.1), which no program reads")
            }
        }
        #expect(named.count > 5)
    }

    @Test func theConfigFileExampleIsOneTheServerReads() throws {
        let page = try Self.source("docs/server.md")
        let example = try #require(page.firstMatch(of: /## The config file[\s\S]*?```json\n([\s\S]*?)```/)?.1)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("example-\(UUID().uuidString).json")
        try Data(example.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let settings = try ServerSettings.load(contentsOf: file.path)
        #expect(settings.adminPassword != nil && settings.retentionDays == 365)
    }

    @Test func everyFileLinkedExists() throws {
        for (name, text) in try Self.documents() {
            let base = name.hasPrefix("docs/") ? Self.folder.appendingPathComponent("docs") : Self.folder
            for match in text.matches(of: /\]\(([^)#:\s]+)(#[^)]*)?\)/) {
                let target = base.appendingPathComponent(String(match.1)).standardizedFileURL
                #expect(FileManager.default.fileExists(atPath: target.path), "\(name) links to \(match.1), which is not there")
            }
        }
    }

    /// The repository stands alone: nothing in it cites a file outside it (a test once pointed
    /// at ../shared/NOTES.md, which a clone does not have).
    @Test func nothingCitesAFileOutsideTheRepository() throws {
        var cited: [String] = []
        for folder in ["Sources", "Tests", "docs", "scripts", "deploy"] {
            let root = Self.folder.appendingPathComponent(folder)
            for case let file as String in FileManager.default.enumerator(atPath: root.path) ?? .init() {
                guard let text = try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8) else { continue }
                if text.contains("../shared/") && file != "EndToEndTests/DocumentationTests.swift" { cited.append("\(folder)/\(file)") }
            }
        }
        #expect(cited.isEmpty, "\(cited)")
    }
}
