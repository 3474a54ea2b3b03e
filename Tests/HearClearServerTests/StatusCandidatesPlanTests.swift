import GRDB
import Testing

@testable import HearClearServer

/// The status rule's candidates come from `checkin_venue_home` alone (SQLite migration 0019): each
/// check-in's row sits beside its seconds' blob, so reading the rows read a page of blobs for every
/// candidate, most of the one writer's reads from a large file (docs/profiling.md, Ingest, step 46).
/// A column read that the index lacks, or an index that loses one, makes SQLite read the rows again.
struct StatusCandidatesPlanTests {
    @Test(arguments: [true, false]) func theCandidatesAreReadFromTheIndexAlone(oneHomeHour: Bool) async throws {
        let database = try await TemporaryDatabase(.sqlite)
        let pool = try #require((database.repository as? SQLiteRepository)?.pool)
        let plan = try await pool.read { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN " + SQLiteRepository.statusCandidatesSQL(oneHomeHour: oneHomeHour),
                arguments: oneHomeHour ? ["venue-1", 20] : ["venue-1"]
            ).map { row in row["detail"] as String }
        }
        #expect(plan.contains { $0.hasPrefix("SEARCH c USING COVERING INDEX checkin_venue_home") }, "\(plan)")
    }
}
