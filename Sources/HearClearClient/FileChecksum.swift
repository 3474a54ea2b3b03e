import CZlib
import Foundation

/// zlib's CRC-32 of a file's bytes, read a mebibyte at a time: what tells apart two recordings of
/// one length, format and start when a check-in's id is made from its recording (two phones at one
/// table, checked in from one device with the same start).
public enum FileChecksum {
    /// Nil when the file cannot be read to its end.
    public static func crc32(ofFileAt path: String) -> UInt32? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var checksum = CZlib.crc32(0, nil, 0)
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                checksum = chunk.withUnsafeBytes { CZlib.crc32(checksum, $0.bindMemory(to: Bytef.self).baseAddress, uInt($0.count)) }
            }
        } catch {
            return nil
        }
        return UInt32(checksum)
    }
}
