import Foundation

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
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
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

/// A `hearclear-server` next to this binary, on a free port.
final class BenchServer {
    let process = Process()
    let port: Int

    init(database: String, executableFolder: URL) throws {
        process.executableURL = executableFolder.appendingPathComponent("hearclear-server")
        process.arguments = ["serve", "--port", "0", "--database", database]
        process.environment = ProcessInfo.processInfo.environment.merging(["HEARCLEAR_RATE_LIMIT": "0", "LOG_LEVEL": "notice"]) { $1 }
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = pipe
        try process.run()
        var text = ""
        while !text.contains("listening on") {
            let data = pipe.fileHandleForReading.availableData
            guard !data.isEmpty else { throw Measure.Failure(description: "hearclear-server did not start: \(text)") }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let address = text.split(separator: " ").first(where: { $0.hasPrefix("http://") }),
            let port = Int(address.split(separator: ":").last?.trimmingCharacters(in: .punctuationCharacters) ?? "")
        else { throw Measure.Failure(description: "no address in: \(text)") }
        self.port = port
        let reader = pipe.fileHandleForReading
        Thread { while !reader.availableData.isEmpty {} }.start()
    }

    /// Peak resident memory so far (VmHWM), MB.
    func peakMemoryMB() -> Double {
        Measure.peakMemoryMB(of: process.processIdentifier)
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// HTTP/1.1 over one kept-alive socket, for the load generator: no client library between the
/// measurement and the server.
final class KeepAliveConnection {
    private let socket: Int32

    init(port: Int) throws {
        socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var noDelay: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Measure.Failure(description: "cannot connect to port \(port)") }
    }

    deinit { close(socket) }

    /// Sends one request and returns the response's status code.
    func exchange(_ request: [UInt8]) throws -> Int {
        try exchangeForBody(request).status
    }

    func exchangeForBody(_ request: [UInt8]) throws -> (status: Int, body: Data) {
        var sent = 0
        while sent < request.count {
            let count = request.withUnsafeBytes { Foundation.send(socket, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Measure.Failure(description: "the server closed the connection") }
            sent += count
        }
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { throw Measure.Failure(description: "the server closed the connection") }
            received += buffer[0..<count]
            guard let end = Self.headEnd(received) else { continue }
            let head = String(decoding: received[..<end], as: UTF8.self)
            let length = head.lowercased().split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
            if received.count >= end + length {
                return (Int(head.split(separator: " ")[1]) ?? 0, Data(received[end..<(end + length)]))
            }
        }
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }
}
