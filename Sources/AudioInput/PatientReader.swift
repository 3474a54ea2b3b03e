import Foundation

/// Reads a file, a pipe, a FIFO or a device, waiting for data at most `stallTimeout` at a time:
/// a FIFO nobody writes to is an error in words, not a program that hangs without a word.
/// (FileHandle would block in `open` until a writer comes, and in `read` forever.)
final class PatientReader {
    private let descriptor: Int32
    private let path: String
    private let stallMilliseconds: Int32

    init(path: String, stallTimeout: Duration) throws {
        self.path = path
        stallMilliseconds = Int32(clamping: stallTimeout.components.seconds * 1000 + stallTimeout.components.attoseconds / 1_000_000_000_000_000)
        // Non-blocking, so opening a FIFO does not wait for a writer; poll() does the waiting.
        descriptor = open(path, O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw WAVFile.Invalid(description: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            close(descriptor)
            throw WAVFile.Invalid(description: "\(path) is a folder, not an audio file")
        }
    }

    deinit {
        close(descriptor)
    }

    /// Up to `count` bytes: fewer only at the end of the data.
    func read(upToCount count: Int) throws -> Data {
        var data = Data(count: count)
        var filled = 0
        while filled < count {
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, stallMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else {
                if ready == 0 {
                    throw WAVFile.Invalid(
                        description: "no audio arrived from \(path) for \(stallMilliseconds / 1000) s: is anything writing to it?")
                }
                throw WAVFile.Invalid(description: "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            let got = data.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress! + filled, count - filled) }
            if got > 0 {
                filled += got
            } else if got == 0 {
                break  // the end of the file, or the writer closed the pipe
            } else if errno != EAGAIN && errno != EINTR {
                throw WAVFile.Invalid(description: "cannot read \(path): \(String(cString: strerror(errno)))")
            }
        }
        return data.prefix(filled)
    }
}
