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
        let checkIn = try await request.decodeJSON(CheckIn.self, limit: settings.maxBodyBytes, timeout: settings.bodyTimeout)
        let now = Date()
        try Validation.checkIn(checkIn, now: now)
        return try await store(checkIn, api: "v1", device: context.device, at: now)
    }

    @Sendable func uploadColumns(_ request: Request, context: DeviceRequestContext) async throws -> EditedResponse<CheckInReceipt> {
        let body = try await request.decodeJSON(CheckInV2.self, limit: settings.maxBodyBytes, timeout: settings.bodyTimeout)
        let now = Date()
        return try await store(try Validation.checkIn(body, now: now), api: "v2", device: context.device, at: now)
    }

    /// `GET /api/v2/checkins/{id}`: one of the device's own check-ins as stored; another device's is not found.
    @Sendable func uploaded(_ request: Request, context: DeviceRequestContext) async throws -> CheckInV2 {
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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128 + checkIn.samples.count * 120 + checkIn.events.count * 32)
        func add(_ text: String) {
            bytes.append(contentsOf: text.utf8)
            bytes.append(0)
        }
        func add(_ number: Double) {
            withUnsafeBytes(of: number.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }
        add(checkIn.id.wireString)
        add(checkIn.venueID)
        add(checkIn.startedAt.timeIntervalSince1970)
        add(checkIn.intervalS)
        add(checkIn.weighting.rawValue)
        add(checkIn.calibrationDB.map { "\($0.bitPattern)" } ?? "none")
        add(Double(checkIn.samples.count))
        for sample in checkIn.samples {
            add(sample.t)
            add(sample.avg)
            add(sample.peak)
            // Only v2 check-ins have details and classes: v1 ones hash as they always did.
            if let details = sample.details {
                add(details.fastMax)
                add(details.cAvg)
                for index in LevelDetails.octaveNames.indices { add(details.octave(index)) }
            }
            if let classes = sample.classes {
                add("classes")
                add(classes.speech)
                add(classes.music)
            }
        }
        add(Double(checkIn.events.count))
        for event in checkIn.events {
            add(event.t)
            add(event.peak)
            add(event.durationS)
            if let sound = event.sound { add(sound.rawValue) }
        }
        return Data(SHA256.hash(data: bytes))
    }

    private func receipt(_ stored: StoredCheckIn) -> CheckInReceipt {
        CheckInReceipt(
            id: stored.id, venueID: stored.venueID, samples: stored.samples, droppedSamples: stored.droppedSamples,
            levelDB: stored.levelDB.map(Level.rounded), label: stored.levelDB.map(settings.scale.label(for:)),
            status: stored.status)
    }
}
