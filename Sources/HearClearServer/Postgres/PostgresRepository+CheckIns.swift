import Foundation
import HearClearAnalysis
import HearClearCore
import Logging
import PostgresNIO

// Storing uploads: each joins the next group (`PostgresGroupCommit`), and a group is stored in one
// transaction, one statement per table for all of its uploads.
extension PostgresRepository {
    public func storeCheckIn(_ checkIn: CheckIn, contentHash: Data, by device: UUID, at now: Date) async throws -> CheckInOutcome {
        let start = ContinuousClock.now
        defer { ServerMetrics.storeCheckInTransaction.recordSeconds((ContinuousClock.now - start).inSeconds) }
        // Analysed here, on this request's task, so that a group's transaction only writes: made
        // in the transaction, a group's check-ins are analysed one after the other while it holds
        // its venues' locks. For the venue's time zone as a group last locked it, else as a read
        // now sees it (and the server's calibration, if the check-in brings none); the group
        // checks that both still apply.
        var timezone = groupCommit.timezone(of: checkIn.venueID), calibration = checkIn.calibrationDB
        if timezone == nil || calibration == nil {
            (timezone, calibration) = try await read { [logger, defaultCalibrationDB, timezone] connection in
                var found = timezone
                if found == nil {
                    var venue = try await Self.venueRow(checkIn.venueID, locking: false, on: connection, logger: logger)
                    if venue == nil, let target = try await Self.alias(of: checkIn.venueID, on: connection, logger: logger) {
                        venue = try await Self.venueRow(target, locking: false, on: connection, logger: logger)
                    }
                    found = venue?.timezone
                }
                if let calibration = checkIn.calibrationDB { return (found, calibration) }
                let server = try await connection.execute(Statement.ServerCalibrations(devices: [device]), logger: logger).first { _ in true }?.1
                return (found, server ?? defaultCalibrationDB)
            }
            if let timezone { groupCommit.learn([checkIn.venueID: timezone]) }
        }
        let prepared = timezone.flatMap { timezone in calibration.flatMap { PreparedCheckIn(checkIn, calibrationDB: $0, timezone: timezone) } }
        let upload = PostgresGroupCommit.Upload(checkIn: checkIn, contentHash: contentHash, device: device, receivedAt: now, prepared: prepared)
        return try await groupCommit.store(upload) { uploads in try await storeCheckIns(uploads) }
    }

    /// Why an upload of a group has no row of its own in the group's insert.
    private enum Placement {
        case row(Int)
        /// No venue has its id (or the id of a venue merged into it), or its time zone is unknown here.
        case unknownVenue
        /// An earlier upload of the group brings the same check-in id.
        case repeated
    }

    /// Stores a group of uploads in one transaction, as if they had come one after the other in
    /// its order: the venues they name locked, their rows stored, the status rule applied at the
    /// home hours they joined and their venues' cells brought in step, each venue once. Replies in
    /// the group's order.
    func storeCheckIns(_ uploads: [PostgresGroupCommit.Upload]) async throws -> [CheckInOutcome] {
        try await transaction(on: uploadClient) { [groupCommit, defaultCalibrationDB, logger] connection, announcement -> [CheckInOutcome] in
            let named = Set(uploads.map(\.checkIn.venueID))
            var venues = try await Self.lockedVenues(named, on: connection, logger: logger)
            var target: [String: String] = [:]
            for id in named where venues[id] != nil { target[id] = id }
            let unknown = named.subtracting(target.keys)
            if !unknown.isEmpty {
                // Venues merged into others: their check-ins count there. Locked after the others, out
                // of id order: should two groups then wait for each other, PostgreSQL fails one, and
                // its uploads are stored again one at a time.
                let aliases = try await connection.execute(Statement.Aliases(ids: unknown.sorted()), logger: logger).reduce(into: [String: String]()) {
                    $0[$1.0] = $1.1
                }
                let more = try await Self.lockedVenues(Set(aliases.values).subtracting(venues.keys), on: connection, logger: logger)
                venues.merge(more) { locked, _ in locked }
                for (id, venue) in aliases where venues[venue] != nil { target[id] = venue }
            }
            groupCommit.learn(target.compactMapValues { venues[$0]?.timezone })
            let uncalibrated = Set(uploads.filter { $0.checkIn.calibrationDB == nil }.map(\.device))
            let calibrations =
                uncalibrated.isEmpty
                ? [:]
                : try await connection.execute(Statement.ServerCalibrations(devices: Array(uncalibrated)), logger: logger).reduce(into: [UUID: Double]()) {
                    $0[$1.0] = $1.1
                }

            var rows: [Statement.StoreCheckIns.NewCheckIn] = [], placements: [Placement] = [], ids = Set<UUID>()
            for upload in uploads {
                guard let venueID = target[upload.checkIn.venueID], let venue = venues[venueID] else {
                    placements.append(.unknownVenue)
                    continue
                }
                guard ids.insert(upload.checkIn.id).inserted else {
                    placements.append(.repeated)
                    continue
                }
                let calibration = upload.checkIn.calibrationDB ?? calibrations[upload.device] ?? defaultCalibrationDB
                let stillApplies = upload.prepared?.matches(calibrationDB: calibration, timezone: venue.timezone) ?? false
                guard let prepared = stillApplies ? upload.prepared : PreparedCheckIn(upload.checkIn, calibrationDB: calibration, timezone: venue.timezone)
                else {
                    placements.append(.unknownVenue)
                    continue
                }
                placements.append(.row(rows.count))
                rows.append(
                    Statement.StoreCheckIns.NewCheckIn(
                        checkIn: upload.checkIn, venueID: venueID, device: upload.device, contentHash: upload.contentHash, calibrationDB: calibration,
                        prepared: prepared, receivedAt: upload.receivedAt, announcement: announcement.payload(for: venueID)))
            }

            // The rows stored (an id another transaction took stores none), and the status rule's
            // candidates at their venues' home hours.
            var seqs: [UUID: Int64] = [:], candidates: [String: [StatusCandidate<Int64>]] = [:]
            if !rows.isEmpty {
                for try await (isNew, id, venueID, candidate) in try await connection.execute(Statement.StoreCheckIns(rows: rows), logger: logger) {
                    if isNew { seqs[id] = candidate.key }
                    candidates[venueID, default: []].append(candidate)
                }
                announcement.sent(Set(rows.filter { seqs[$0.checkIn.id] != nil }.map(\.venueID)))
            }
            let changes = try await Self.applyRules(joining: rows, stored: seqs, among: candidates, on: connection, logger: logger)

            var outcomes: [CheckInOutcome] = []
            for (upload, placement) in zip(uploads, placements) {
                if case .row(let index) = placement, let seq = seqs[upload.checkIn.id] {
                    let row = rows[index], analysis = row.prepared.analysis
                    outcomes.append(
                        .created(
                            StoredCheckIn(
                                id: upload.checkIn.id, venueID: row.venueID, samples: upload.checkIn.samples.count, droppedSamples: analysis.droppedSamples,
                                levelDB: analysis.levelDB, status: changes.status(of: seq) ?? row.prepared.storedStatus())))
                    continue
                }
                // A retry or a conflict is told by the insert finding the id taken, not by a read before
                // it: that read was one round trip more for every new check-in.
                if let existing = try await Self.storedCheckIn(id: upload.checkIn.id, on: connection, logger: logger) {
                    outcomes.append(existing.contentHash == upload.contentHash && existing.device == upload.device ? .replayed(existing.stored) : .conflict)
                } else if case .unknownVenue = placement {
                    outcomes.append(.unknownVenue)
                } else {
                    outcomes.append(.conflict)
                }
            }
            return outcomes
        }
    }

    /// The status rule at the home hours where the group's check-ins that count joined (each venue's
    /// candidates as the group's statement returned them), the statuses it changes saved and the
    /// venues' cells brought in step. The rule's verdicts depend on which check-ins a home hour holds,
    /// not on their order, so deciding once with the whole group gives what deciding after each
    /// upload would have. Returns the changes.
    private static func applyRules(
        joining rows: [Statement.StoreCheckIns.NewCheckIn], stored seqs: [UUID: Int64], among candidates: [String: [StatusCandidate<Int64>]],
        on connection: PostgresConnection, logger: Logger
    ) async throws -> [StatusChange<Int64>] {
        var joined: [String: [JoinedCheckIn<Int64>]] = [:], homeHours: [String: Set<Int>] = [:]
        for row in rows {
            guard let seq = seqs[row.checkIn.id], let checkIn = row.prepared.joined(as: seq) else { continue }
            joined[row.venueID, default: []].append(checkIn)
            homeHours[row.venueID, default: []].insert(row.prepared.analysis.homeHour.hour)
        }
        var changes: [StatusChange<Int64>] = [], updates: [String: CellUpdate<Int64>] = [:]
        for (venueID, checkIns) in joined {
            let hours = homeHours[venueID] ?? []
            let venueChanges = Analysis.statusChanges(among: (candidates[venueID] ?? []).filter { hours.contains($0.home.hour) })
            changes += venueChanges
            updates[venueID] = Analysis.cellUpdate(after: venueChanges, joined: checkIns)
        }
        try await save(changes, on: connection, logger: logger)
        try await bringCells(updates, on: connection, logger: logger)
        return changes
    }
}
