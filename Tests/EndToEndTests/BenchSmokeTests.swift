import Foundation
import Testing

/// `make bench` cannot rot: every case runs once at a tiny size. Nothing here judges speed.
@Suite struct BenchSmokeTests {
    struct Document: Decodable {
        struct Case: Decodable {
            struct Metric: Decodable {
                let name: String
                let value: Double
            }

            struct Goal: Decodable {
                let description: String
            }

            let name: String
            let note: String
            let metrics: [Metric]
            let goals: [Goal]
        }

        let cores: Int
        let cases: [Case]
    }

    @Test func everyCaseRunsAndReports() async throws {
        let folder = try temporaryFolder()
        let json = folder.appendingPathComponent("results.json"), markdown = folder.appendingPathComponent("benchmarks.md")
        // With the cluster make test starts, as make bench passes its own.
        let cluster = try #require(ProcessInfo.processInfo.environment["HEARCLEAR_TEST_POSTGRES"], "run through make test, which starts a PostgreSQL cluster")
        let run = try await Executable.run(
            "hearclear-bench",
            ["--size", "tiny", "--work", folder.appendingPathComponent("work").path, "--json", json.path, "--markdown", markdown.path, "--postgres", cluster])
        #expect(run.status == 0, "\(run.errors)")
        let document = try JSONDecoder().decode(Document.self, from: Data(contentsOf: json))
        #expect(document.cases.map(\.name) == ["Ingest", "Ingest (PostgreSQL)", "Growth", "Growth (PostgreSQL)", "Query", "Query (PostgreSQL)", "Meter", "Wire size", "Memory over time"])
        for result in document.cases {
            #expect(!result.goals.isEmpty, "\(result.name)")
            #expect(result.metrics.allSatisfy { $0.value.isFinite && $0.value >= 0 }, "\(result.name): \(result.metrics.map { "\($0.name)=\($0.value)" })")
        }
        let text = try String(contentsOf: markdown, encoding: .utf8)
        #expect(text.hasPrefix("# Benchmarks") && text.contains("| Ingest |") && text.contains("\(document.cores) cores"))
    }

    /// `--growth-venues` spreads the growth case's check-ins over fewer venues (a busy venue's size
    /// sooner, docs/profiling.md); none is refused before any work.
    @Test func theGrowthCaseTakesItsVenuesFromTheCommandLine() async throws {
        let folder = try temporaryFolder()
        let json = folder.appendingPathComponent("results.json"), work = folder.appendingPathComponent("work").path
        let none = try await Executable.run("hearclear-bench", ["--size", "tiny", "--only", "growth", "--growth-venues", "0", "--work", work])
        #expect(none.status != 0 && none.errors.contains("--growth-venues needs at least one venue"), "\(none.errors)")
        let run = try await Executable.run(
            "hearclear-bench", ["--size", "tiny", "--only", "growth", "--growth-venues", "3", "--growth-up-to", "40", "--work", work, "--json", json.path])
        #expect(run.status == 0, "\(run.errors)")
        let growth = try #require(try JSONDecoder().decode(Document.self, from: Data(contentsOf: json)).cases.first)
        #expect(growth.note.contains("over 3 venues"), "\(growth.note)")
    }
}
