import Foundation

/// A server process on loopback (`hearclear-server`, or the bench's bare Hummingbird), for the
/// tests and the bench alike: started, its start line awaited, stopped at deinit. Its standard
/// output and error go through a pipe that a thread copies to `logFile` (as a service manager
/// copies a service's output to its journal) and keeps for `log` and `logLine(containing:)`.
public final class ServerProcess: @unchecked Sendable {
    public let process: Process
    public let startLine: String
    public let url: URL
    public let logFile: URL
    /// The port this server and any restarted on it keep while none listens (nil: none kept).
    public let reservedPort: ReservedPort?
    private let output: LogBuffer

    /// Starts `executable` and waits for the line naming its address (`… listening on http://HOST:PORT…`).
    /// The wait happens on a thread of its own, not on one of Swift concurrency's few shared ones,
    /// which tests and the bench's other tasks need meanwhile.
    public init(
        executable: URL, arguments: [String], environment: [String: String], logFile: URL, holding reservedPort: ReservedPort? = nil
    ) async throws {
        self.logFile = logFile
        self.reservedPort = reservedPort
        let process = Process(), output = LogBuffer()
        self.process = process
        self.output = output
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        guard FileManager.default.createFile(atPath: logFile.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: logFile.path])
        }
        let file = try FileHandle(forWritingTo: logFile)
        try process.run()
        let reader = pipe.fileHandleForReading
        Thread {
            while case let data = reader.availableData, !data.isEmpty {
                file.write(data)
                output.append(String(decoding: data, as: UTF8.self))
            }
            try? file.close()
            output.close()
        }.start()
        let found = await onAThreadOfItsOwn { output.line(containing: "listening on http://", occurrence: 1, until: nil) }
        guard let found, let address = found.split(separator: " ").first(where: { $0.hasPrefix("http://") }),
            let url = URL(string: address.trimmingCharacters(in: CharacterSet(charactersIn: ",\"")))
        else {
            let said = await onAThreadOfItsOwn { output.text(waitingForEnd: true) }
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(executable.lastPathComponent) did not start: \(said)"])
        }
        startLine = found
        self.url = url
    }

    public var port: Int { url.port ?? 0 }
    public var pid: Int32 { process.processIdentifier }

    /// Everything the server logged; once it has stopped, all of it.
    public var log: String {
        output.text(waitingForEnd: !process.isRunning)
    }

    /// The `occurrence`th log line containing `text`, once the server has logged it (nil if it
    /// ends first, or `limit` passes: a test waiting for what never comes fails instead of hanging).
    public func logLine(containing text: String, occurrence: Int = 1, within limit: TimeInterval = 120) async -> String? {
        let deadline = Date(timeIntervalSinceNow: limit)
        return await onAThreadOfItsOwn { [output] in output.line(containing: text, occurrence: occurrence, until: deadline) }
    }

    /// Kills the server at once, as a crash or a power cut would, and waits until it has gone
    /// (its output ends). Not `waitUntilExit`: in a test process that also runs programs through
    /// swift-subprocess it was seen waiting for ever for a child that had exited.
    public func kill() async {
        Foundation.kill(process.processIdentifier, SIGKILL)
        await onAThreadOfItsOwn { [output] in _ = output.text(waitingForEnd: true) }
    }

    /// SIGTERM, and waits until the server has stopped (its output ends).
    public func stop() async {
        guard process.isRunning else { return }
        process.terminate()
        await onAThreadOfItsOwn { [output] in _ = output.text(waitingForEnd: true) }
    }

    /// SIGTERM, and waits until the server has stopped or `limit` has passed; whether it stopped.
    /// For tests that a stop ends: `stop()` would wait for ever for a server that hangs.
    public func stop(within limit: Duration) async -> Bool {
        guard process.isRunning else { return true }
        process.terminate()
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        return await onAThreadOfItsOwn { [output] in output.waitForEnd(until: Date().addingTimeInterval(seconds)) }
    }

    /// The server's peak resident memory so far (VmHWM), kB; 0 once it has gone.
    public func peakMemoryKB() -> Int {
        Self.peakMemoryKB(of: pid)
    }

    public static func peakMemoryKB(of pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// A server a test left running is stopped, here without waiting for it.
    deinit {
        if process.isRunning { process.terminate() }
    }
}

/// Runs `body`, which blocks its thread (waiting for a process or a pipe), on a thread of its own:
/// blocking one of Swift concurrency's shared threads, as many as there are cores, starves every
/// other task of the process meanwhile.
public func onAThreadOfItsOwn<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// Text gathered by a reader thread; readers wait for what they need.
final class LogBuffer: @unchecked Sendable {
    private let condition = NSCondition()
    private var buffer = ""
    private var closed = false

    func append(_ text: String) {
        condition.withLock {
            buffer += text
            condition.broadcast()
        }
    }

    func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    /// Waits for the line, until `deadline` if there is one (`NSCondition` traps on a wait until
    /// `Date.distantFuture` here, so none means a plain wait).
    func line(containing text: String, occurrence: Int, until deadline: Date?) -> String? {
        condition.withLock {
            while true {
                let lines = buffer.split(separator: "\n").filter { $0.contains(text) }
                if lines.count >= occurrence { return String(lines[occurrence - 1]) }
                if closed { return nil }
                if let deadline {
                    if !condition.wait(until: deadline) { return nil }
                } else {
                    condition.wait()
                }
            }
        }
    }

    /// Waits until the output ends or `deadline` passes; whether it ended.
    func waitForEnd(until deadline: Date) -> Bool {
        condition.withLock {
            while !closed && condition.wait(until: deadline) {}
            return closed
        }
    }

    func text(waitingForEnd: Bool) -> String {
        condition.withLock {
            while waitingForEnd && !closed { condition.wait() }
            return buffer
        }
    }
}
