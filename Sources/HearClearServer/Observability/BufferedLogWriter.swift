import Foundation

/// Lines written from a thread of their own, so a request never waits for a write to a file, a
/// pipe or a terminal. Lines queue in memory and go out in batches, every `interval` or sooner when
/// `batchBytes` have queued: waking the writer for each line cost more than the write. Past
/// `capacity` bytes a logger waits for room rather than drop anything. `flush()` returns once every
/// line queued so far is written: call it before the process exits.
public final class BufferedLogWriter: @unchecked Sendable {
    private let descriptor: Int32
    private let capacity: Int
    private let batchBytes: Int
    private let interval: TimeInterval
    private let condition = NSCondition()
    private var queued: [UInt8] = []
    /// Bytes written so far, and bytes queued so far: a flush waits until the first reaches the second.
    private var written = 0
    private var enqueued = 0
    private var flushWanted = false

    public init(descriptor: Int32 = STDERR_FILENO, capacity: Int = 16 << 20, batchBytes: Int = 64 << 10, interval: TimeInterval = 0.05) {
        self.descriptor = descriptor
        self.capacity = capacity
        self.batchBytes = batchBytes
        self.interval = interval
        queued.reserveCapacity(64 << 10)
        let thread = Thread { [self] in drain() }
        thread.name = "hearclear log"
        thread.start()
    }

    func append(_ line: String) {
        condition.lock()
        while queued.count >= capacity { condition.wait() }
        queued.append(contentsOf: line.utf8)
        queued.append(UInt8(ascii: "\n"))
        enqueued += line.utf8.count + 1
        if queued.count >= batchBytes { condition.broadcast() }
        condition.unlock()
    }

    /// Waits until every line appended before the call is written.
    public func flush() {
        condition.lock()
        let target = enqueued
        flushWanted = true
        condition.broadcast()
        while written < target { condition.wait() }
        condition.unlock()
    }

    private func drain() {
        while true {
            condition.lock()
            while queued.isEmpty || (queued.count < batchBytes && !flushWanted) {
                // A timed wait: lines go out within `interval` even when few come.
                if !condition.wait(until: Date(timeIntervalSinceNow: interval)) && !queued.isEmpty { break }
            }
            flushWanted = false
            let batch = queued
            queued.removeAll(keepingCapacity: true)
            condition.broadcast()  // room for waiting writers
            condition.unlock()

            var offset = 0
            batch.withUnsafeBytes { bytes in
                while offset < bytes.count {
                    let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if count > 0 {
                        offset += count
                    } else if count < 0 && errno == EINTR {
                        continue
                    } else {
                        break  // the log's destination is gone: nothing better to do than go on
                    }
                }
            }
            condition.lock()
            written += batch.count
            condition.broadcast()
            condition.unlock()
        }
    }
}
