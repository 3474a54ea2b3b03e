import Crypto
import Foundation
import HearClearCore
import Hummingbird

/// `/api/v1/checkins` and `/api/v2/checkins`: uploads of measured sessions, one object per
/// interval in v1, in columns with the details in v2; v2 also reads a device's own check-ins back.
/// Both versions store the same way and share authentication, limits, idempotency and errors.
struct CheckInController {
    let repository: any Repository
    let settings: ServerSettings
    /// Per-device and per-address write limits; nil when they are off.
    let limiter: RateLimiter?
    let uploads: UploadGate

    func addRoutes(to group: RouterGroup<APIRequestContext>) {
        group.methodNotAllowed("", allowing: [.post])
        if let limiter { group.add(middleware: AddressRateLimitMiddleware(limiter: limiter, trustedProxies: settings.trustedProxies)) }
        group.add(middleware: DeviceAuthenticator(repository: repository, limiter: limiter))
            .group(context: DeviceRequestContext.self)
            .post { request, context in try await uploads.run { try await upload(request, context: context) } }
    }

    func addVersion2Routes(to group: RouterGroup<APIRequestContext>) {
        group.methodNotAllowed("", allowing: [.post])
        group.methodNotAllowed(":id", allowing: [.get])
        // Middleware added to a group applies to every route added through it afterwards, so
        // reads and uploads each get a group of their own: reading back is not a write, and has
        // no rate limit.
        let reads = group.group(), uploads = group.group()
        reads.add(middleware: DeviceAuthenticator(repository: repository, limiter: nil))
            .group(context: DeviceRequestContext.self)
            .get(":id") { request, context in try await uploaded(request, context: context) }
        if let limiter { uploads.add(middleware: AddressRateLimitMiddleware(limiter: limiter, trustedProxies: settings.trustedProxies)) }
        uploads.add(middleware: DeviceAuthenticator(repository: repository, limiter: limiter))
            .group(context: DeviceRequestContext.self)
            .post { request, context in try await self.uploads.run { try await uploadColumns(request, context: context) } }
    }

    @Sendable func upload(_ request: Request, context: DeviceRequestContext) async throws -> EditedResponse<CheckInReceipt> {
        try request.refuseQueryParameters()
        let checkIn = try await request.decodeJSON(CheckIn.self, limit: settings.maxBodyBytes, timeout: settings.bodyTimeout)
        let now = Date()
        try Validation.checkIn(checkIn, now: now)
        return try await store(checkIn, api: "v1", device: context.device, at: now)
    }

    @Sendable func uploadColumns(_ request: Request, context: DeviceRequestContext) async throws -> EditedResponse<CheckInReceipt> {
        try request.refuseQueryParameters()
        let body = try await request.decodeJSON(CheckInV2.self, limit: settings.maxBodyBytes, timeout: settings.bodyTimeout)
        let now = Date()
        return try await store(try Validation.checkIn(body, now: now), api: "v2", device: context.device, at: now)
    }

    /// `GET /api/v2/checkins/{id}`: one of the device's own check-ins as stored; another device's is not found.
    @Sendable func uploaded(_ request: Request, context: DeviceRequestContext) async throws -> CheckInV2 {
        try request.refuseQueryParameters()
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.badRequest("the check-in id must be a UUID")
        }
        guard let checkIn = try await repository.uploadedCheckIn(id: id, by: context.device.id) else {
            throw APIError.notFound("this device uploaded no check-in \(id.wireString)")
        }
        return CheckInV2(checkIn)
    }

    private func store(_ checkIn: CheckIn, api: String, device: Device, at now: Date) async throws -> EditedResponse<CheckInReceipt> {
        let outcome = try await repository.storeCheckIn(checkIn, contentHash: Self.contentHash(checkIn), by: device.id, at: now)
        switch outcome {
        case .created(let stored):
            ServerMetrics.checkInStored(status: stored.status, api: api, samples: stored.samples, dropped: stored.droppedSamples)
            return EditedResponse(status: .created, response: receipt(stored))
        case .replayed(let stored):
            return EditedResponse(status: .ok, response: receipt(stored))
        case .conflict:
            throw APIError.conflict("check-in \(checkIn.id.wireString) was already uploaded with different content")
        case .unknownVenue:
            throw APIError.unprocessable("venue \(checkIn.venueID) does not exist: create it with PUT /api/v1/venues/\(checkIn.venueID)")
        }
    }

    /// Identifies the content of an upload whatever its formatting, key order or compression, so a
    /// retry is recognised: SHA-256 over its values in a fixed order (numbers as their bit patterns).
    /// Every value stored counts: an upload differing only in its speech and music, or in an event's
    /// class, is a conflict, not a retry. The bytes are gathered first and hashed at once: a hasher
    /// update per value cost a fifth of an upload's time (docs/profiling.md, "Ingest"); the digest
    /// is the same (`ContentHashTests`).
    static func contentHash(_ checkIn: CheckIn) -> Data {
        var head: [UInt8] = []
        add(checkIn.id.wireString, to: &head)
        add(checkIn.venueID, to: &head)
        add(checkIn.startedAt.timeIntervalSince1970, to: &head)
        add(checkIn.intervalS, to: &head)
        add(checkIn.weighting.rawValue, to: &head)
        add(checkIn.calibrationDB.map { "\($0.bitPattern)" } ?? "none", to: &head)
        add(Double(checkIn.samples.count), to: &head)
        // The seconds, nearly all of the bytes, as 8-byte words: each of their values is a double,
        // and the classes' mark, "classes" and its 0, is eight bytes too. Appended a value at a time
        // to an array of bytes they were two thirds of the hash's time (`perf`).
        var seconds: [UInt64] = []
        seconds.reserveCapacity(checkIn.samples.count * 11)
        for sample in checkIn.samples {
            seconds.append(sample.t.bitPattern.littleEndian)
            seconds.append(sample.avg.bitPattern.littleEndian)
            seconds.append(sample.peak.bitPattern.littleEndian)
            // Only v2 check-ins have details and classes: v1 ones hash as they always did.
            if let details = sample.details {
                seconds.append(details.fastMax.bitPattern.littleEndian)
                seconds.append(details.cAvg.bitPattern.littleEndian)
                for index in LevelDetails.octaveNames.indices { seconds.append(details.octave(index).bitPattern.littleEndian) }
            }
            if let classes = sample.classes {
                seconds.append(classesMark)
                seconds.append(classes.speech.bitPattern.littleEndian)
                seconds.append(classes.music.bitPattern.littleEndian)
            }
        }
        var tail: [UInt8] = []
        add(Double(checkIn.events.count), to: &tail)
        for event in checkIn.events {
            add(event.t, to: &tail)
            add(event.peak, to: &tail)
            add(event.durationS, to: &tail)
            if let sound = event.sound { add(sound.rawValue, to: &tail) }
        }
        var hasher = SHA256()
        hasher.update(data: head)
        seconds.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        hasher.update(data: tail)
        return Data(hasher.finalize())
    }

    /// "classes" and its terminating 0, as the word whose bytes they are.
    private static let classesMark = (Array("classes".utf8) + [0]).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }

    private static func add(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: text.utf8)
        bytes.append(0)
    }

    private static func add(_ number: Double, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: number.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private func receipt(_ stored: StoredCheckIn) -> CheckInReceipt {
        CheckInReceipt(
            id: stored.id, venueID: stored.venueID, samples: stored.samples, droppedSamples: stored.droppedSamples,
            levelDB: stored.levelDB.map(Level.rounded), label: stored.levelDB.map(settings.scale.label(for:)),
            status: stored.status)
    }
}
