import Foundation
import LoopbackHTTP

/// Runs programs and measures what they cost: wall time, user CPU and peak memory (from wait4).
enum Measure {
    struct Run {
        let status: Int32
        let output: String
        let wallSeconds: Double
        let userSeconds: Double
        let peakMemoryMB: Double
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `program` to the end; stdin from `input` when given. Spawned and reaped here (not with
    /// Process, which reaps its children itself) so that wait4 can report the child's resources.
    static func run(_ program: String, _ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> Run {
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("hearclear-bench-\(UUID().uuidString).out").path
        defer { unlink(outputFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        let spawned = posix_spawn(&pid, program, &actions, nil, argv, envp)
        guard spawned == 0 else { throw Failure(description: "cannot start \(program): error \(spawned)") }
        // wait4's ru_maxrss would include this (large) process's memory, inherited through spawn and
        // exec; the child's own high-water mark is VmHWM in /proc, watched until it exits.
        let peak = Locked(0.0), running = Locked(true)
        let child = pid
        let watcher = Thread {
            while running.withLock({ $0 }) {
                let hwm = peakMemoryMB(of: child)
                peak.withLock { $0 = max($0, hwm) }
                usleep(2_000)
            }
        }
        watcher.start()
        var status: Int32 = 0
        var usage = rusage()
        // Peek first (WNOWAIT) so the last reading happens while /proc still describes the child.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        running.withLock { $0 = false }
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let wall = (ContinuousClock.now - start).seconds
        return Run(
            status: (status >> 8) & 0xFF, output: (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? "",
            wallSeconds: wall,
            userSeconds: Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
            peakMemoryMB: peak.withLock { $0 })
    }

    /// A running process's peak resident memory so far (VmHWM), MB; 0 once it has gone.
    static func peakMemoryMB(of pid: pid_t) -> Double {
        Double(ServerProcess.peakMemoryKB(of: pid)) / 1024
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
    }
}

extension ServerProcess {
    /// `hearclear-server` next to this binary, on a free port, at its default settings (log level
    /// info, the access log on) unless `environment` says otherwise; its log goes to a file.
    static func hearclear(database: String, binaries: URL, environment: [String: String] = [:], logFile: URL? = nil) async throws -> ServerProcess {
        try await ServerProcess(
            executable: binaries.appendingPathComponent("hearclear-server"), arguments: ["serve", "--port", "0", "--database", database],
            environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARCLEAR_") && $0.key != "LOG_LEVEL" }.merging(environment) { $1 },
            logFile: logFile ?? URL(fileURLWithPath: database + ".log"))
    }

    /// The framework's ceiling: Hummingbird alone answering /healthz (Sources/bare-hummingbird).
    static func bareHummingbird(binaries: URL, logFile: URL) async throws -> ServerProcess {
        try await ServerProcess(
            executable: binaries.appendingPathComponent("bare-hummingbird"), arguments: ["0"], environment: ProcessInfo.processInfo.environment,
            logFile: logFile)
    }

    /// Peak resident memory so far (VmHWM), MB.
    func peakMemoryMB() -> Double {
        Double(peakMemoryKB()) / 1024
    }
}
