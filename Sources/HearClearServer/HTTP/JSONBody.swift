import CompressNIO
import Foundation
import HearClearCore
import Hummingbird
import NIOCore

extension Request {
    /// Reads and decodes a JSON body, plain or gzip-compressed, of at most `limit` bytes both on the
    /// wire and after decompression, arriving within `timeout`. Inflating stops as soon as the limit
    /// is passed, so a gzip bomb costs at most `limit` bytes of memory.
    func decodeJSON<Value: Decodable>(_ type: Value.Type, limit: Int, timeout: Duration) async throws -> Value {
        guard headers[.contentType].map(Self.mediaType) == "application/json" else {
            throw APIError.unsupportedMediaType("Content-Type must be application/json")
        }
        if let length = headers[.contentLength].flatMap(Int.init), length > limit {
            throw APIError.tooLarge(limit: limit)
        }
        let gzipped: Bool
        switch headers[.contentEncoding]?.trimmingCharacters(in: .whitespaces).lowercased() {
        case nil, "", "identity": gzipped = false
        case "gzip", "x-gzip": gzipped = true
        case let other?:
            throw APIError.unsupportedMediaType("Content-Encoding \(other) is not supported: send gzip or nothing")
        }
        let bytes = try await withThrowingTaskGroup(of: ByteBuffer.self) { group in
            group.addTask {
                do {
                    return gzipped ? try await self.inflateBody(limit: limit) : try await self.collectBody(limit: limit)
                } catch let error where error is HTTPError || error is RequestCutOff {
                    throw error
                } catch {
                    // The connection failed mid-body (reset by the client, say).
                    throw RequestCutOff()
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw HTTPError(.requestTimeout, headers: [.connection: "close"], message: "the request body took longer than \(timeout) to arrive")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
        return try JSONBody.decode(type, from: Data(buffer: bytes))
    }

    /// The media type of a `Content-Type` value without its parameters, lower-cased: "" for an
    /// empty value or one that starts with `;`.
    static func mediaType(_ contentType: String) -> String {
        contentType.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased()
    }

    private func collectBody(limit: Int) async throws -> ByteBuffer {
        var collected = ByteBuffer()
        for try await var chunk in body {
            guard collected.readableBytes + chunk.readableBytes <= limit else { throw APIError.tooLarge(limit: limit) }
            collected.writeBuffer(&chunk)
        }
        try checkWhole(received: collected.readableBytes)
        return collected
    }

    private func inflateBody(limit: Int) async throws -> ByteBuffer {
        let decompressor = CompressionAlgorithm.gzip().decompressor
        try decompressor.startStream()
        defer { try? decompressor.finishStream() }
        var inflated = ByteBuffer()
        var window = ByteBufferAllocator().buffer(capacity: 64 * 1024)
        var compressedBytes = 0
        var trailer: [UInt8] = []
        for try await var chunk in body {
            compressedBytes += chunk.readableBytes
            guard compressedBytes <= limit else { throw APIError.tooLarge(limit: limit) }
            trailer = Array((trailer + chunk.readableBytesView).suffix(4))
            while chunk.readableBytes > 0 {
                let unread = chunk.readableBytes
                window.clear()
                do {
                    try chunk.decompressStream(to: &window, with: decompressor)
                } catch let error as CompressNIOError where error == .bufferOverflow {
                    // The window is full; the rest of the chunk goes round again.
                } catch {
                    throw APIError.badRequest("the gzip body is corrupt")
                }
                guard inflated.readableBytes + window.readableBytes <= limit else { throw APIError.tooLarge(limit: limit) }
                if window.readableBytes == 0 && chunk.readableBytes == unread {
                    throw APIError.badRequest("the gzip body has data after its end")
                }
                inflated.writeBuffer(&window)
            }
        }
        try checkWhole(received: compressedBytes)
        // A gzip stream ends with the inflated size modulo 2^32; a truncated body rarely matches it.
        let expectedSize = trailer.count == 4 ? trailer.reversed().reduce(0) { $0 << 8 | Int($1) } : -1
        guard expectedSize == inflated.readableBytes % (1 << 32) else {
            throw APIError.badRequest("the gzip body is truncated")
        }
        return inflated
    }
}

enum JSONBody {
    /// Decodes JSON, telling malformed documents and wrong types (400) from unacceptable values (422).
    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        // The common form of a body that has a quick reading; any other goes to JSONDecoder, which
        // also says what is wrong.
        if let scanned = (type as? any ScannedJSON.Type)?.scanned(data) as? Value { return scanned }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            let problem = JSONProblem(
                error, root: "body", document: data, numbers: "levels are whole tenths of a dB and classes whole percent, integers within range")
            throw problem.isValue ? APIError.unprocessable(problem.description) : APIError.badRequest(problem.description)
        } catch {
            throw APIError.badRequest("malformed JSON")
        }
    }
}

/// Encodes answers as JSON, gzip-compressed when the client accepts gzip and the body is worth it.
public struct APIResponseEncoder: ResponseEncoder {
    static let smallestCompressedBody = 1024

    /// Keys sorted: Swift's encoder otherwise orders them by a hash seeded per process, and every
    /// server of a deployment (and every restart) must give the same bytes for the same answer.
    static func jsonEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        var body = ByteBuffer(data: try Self.jsonEncoder().encode(value))
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .vary: "Accept-Encoding"]
        if body.readableBytes >= Self.smallestCompressedBody, request.acceptsGzip {
            body = try body.compress(with: .gzip())
            headers[.contentEncoding] = "gzip"
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }
}

extension Request {
    /// Whether `Accept-Encoding` lists gzip without `q=0`.
    var acceptsGzip: Bool {
        headers[values: .acceptEncoding].flatMap { $0.split(separator: ",") }.contains { coding in
            let parts = coding.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.first == "gzip" || parts.first == "x-gzip" else { return false }
            return !parts.dropFirst().contains { $0.hasPrefix("q=") && Double($0.dropFirst(2)) == 0 }
        }
    }
}
