import ArgumentParser
import Foundation

@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearclear-bench",
        abstract: "Measure ingest, queries, the meter, wire size and memory against references run on the same machine.",
        discussion: "Needs wrk, sox and sqlite3, and the hearclear and hearclear-server binaries next to this one.")

    enum Scale: String, ExpressibleByArgument {
        case full, tiny
    }

    @Option(help: "full for real numbers; tiny to run every case in seconds (make test).")
    var size: Scale = .full

    @Option(help: ArgumentHelp("Write the results as JSON here.", valueName: "path"))
    var json: String?

    @Option(help: ArgumentHelp("Write the results as Markdown here (docs/benchmarks.md).", valueName: "path"))
    var markdown: String?

    @Option(help: ArgumentHelp("Run only these cases (ingest, growth, query, meter, wire, memory), to profile one.", valueName: "case"))
    var only: [String] = []

    @Option(help: ArgumentHelp("A PostgreSQL cluster's postgres database (scripts/test-postgres.sh start): also measure ingest and loudness answers on PostgreSQL.", valueName: "url"))
    var postgres: String?

    @Flag(help: "With --postgres: measure on PostgreSQL only, not on SQLite too, to profile it.")
    var postgresOnly = false

    @Option(help: ArgumentHelp("Stop the growth case after the step with this many check-ins stored, to profile it.", valueName: "n"))
    var growthUpTo: Int?

    @Option(
        help: ArgumentHelp(
            "Spread the growth case's check-ins over this many venues (10,000 in a full run): fewer venues reach a busy venue's size in fewer check-ins, to profile it.",
            valueName: "n"))
    var growthVenues: Int?

    @Option(
        help: ArgumentHelp(
            "Measure the growth case's one step over a copy of this SQLite file, or with --postgres-only of this PostgreSQL database of the cluster, filled by an earlier run of it (the file left in its work folder; the database kept by --keep-databases): a change tried at 10⁶ stored in minutes, not an hour.",
            valueName: "path or name"))
    var growthFrom: String?

    @Flag(help: "Leave the PostgreSQL databases the cases made (named bench_…), to give one to --growth-from.")
    var keepDatabases = false

    @Option(help: ArgumentHelp("Scratch folder for databases and recordings.", valueName: "path"))
    var work: String = FileManager.default.temporaryDirectory.appendingPathComponent("hearclear-bench").path

    func run() async throws {
        let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        if postgresOnly && postgres == nil { throw ValidationError("--postgres-only needs --postgres") }
        var scale = size == .full ? Size.full : Size.tiny
        if let growthUpTo { scale.growthCheckIns.removeAll { $0 > growthUpTo } }
        if let growthVenues {
            guard growthVenues > 0 else { throw ValidationError("--growth-venues needs at least one venue") }
            scale.growthVenues = growthVenues
        }
        if let growthFrom, postgresOnly {
            // A database name goes into SQL as it is.
            guard growthFrom.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                throw ValidationError("--growth-from with --postgres-only takes a database's name (letters, digits, _): \(growthFrom)")
            }
            scale.growthFrom = growthFrom
        } else if let growthFrom {
            let file = URL(fileURLWithPath: growthFrom).standardizedFileURL.path
            // The case empties its folder first.
            guard !file.hasPrefix(URL(fileURLWithPath: work).appendingPathComponent("growth").standardizedFileURL.path + "/") else {
                throw ValidationError("--growth-from \(growthFrom) is in the growth case's own folder, which it empties: move it, or give another --work")
            }
            scale.growthFrom = file
        }
        let cases = Cases(size: scale, work: URL(fileURLWithPath: work), binaries: binaries, postgres: postgres)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        // Read before the cases run, which take an hour: the checkout may move on meanwhile.
        let commit = Report.checkout()
        var results: [CaseResult] = []
        for name in ["ingest", "growth", "query", "meter", "wire", "memory"] where only.isEmpty || only.contains(name) {
            FileHandle.standardError.write(Data("running \(name)…\n".utf8))
            switch name {
            case "ingest":
                if !postgresOnly { results.append(try await cases.ingest()) }
                if let postgres { results.append(try await cases.ingest(.postgres(admin: postgres))) }
            case "growth":
                if !postgresOnly { results.append(try await cases.growth()) }
                if let postgres, growthFrom == nil || postgresOnly { results.append(try await cases.growth(.postgres(admin: postgres))) }
            case "query": results += try await cases.query()
            case "meter": results.append(try cases.meter())
            case "wire": results.append(try cases.wireSize())
            default: results.append(try await cases.memoryOverTime())
            }
            if !keepDatabases { try cases.dropDatabases() }
        }
        let report = Report(results: results, size: size.rawValue, commit: commit)
        print(report.table)
        if let json { try report.json.write(to: URL(fileURLWithPath: json)) }
        if let markdown { try Data(report.markdown.utf8).write(to: URL(fileURLWithPath: markdown)) }
    }
}
