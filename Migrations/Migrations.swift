import Foundation

/// The numbered SQL files of each store (`Migrations/sqlite`, `Migrations/postgres`), in the order
/// they apply. They ship as resources so that an installed binary finds them next to itself, as
/// `swift run` does. A shipped file is never edited: a change is a new file.
public enum Migrations {
    public enum Store: String, Sendable {
        case sqlite, postgres
    }

    public struct File: Sendable {
        /// The file name without `.sql`, e.g. `0001_initial`: the name GRDB records once applied.
        public let name: String
        public let sql: String
    }

    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    /// Migrations that add a column derived from the raw rows, which SQL cannot fill, or change a
    /// rule that decides what is derived (which seconds are dropped): once they are applied, the
    /// server derives every check-in's sums and every cell again, as `hearclear-server rebuild`
    /// does, after the last migration.
    public static let deriveAgainAfter: [Store: Set<String>] = [
        .sqlite: ["0005_level_spread", "0018_silence_dropped"], .postgres: ["0004_level_spread", "0017_silence_dropped"],
    ]

    /// What the server does in Swift right after a file, in the same transaction, where SQL
    /// cannot: each fills the columns its file adds, before the next file drops what they replace.
    public enum Step: Sendable {
        /// After the file that adds `checkin.sample_columns`: each check-in's `sample` rows into that blob.
        case samplesIntoColumns
        /// After the file that adds the histograms' bytes columns: every stored histogram from its text.
        case histogramsIntoBytes
        /// After the file that says the histograms' bytes change: each from the gaps between its
        /// bins to a count per bin (`LevelHistogram.stored`).
        case histogramsDense
        /// After the file that says every sum counts seconds: the venues holding a check-in of
        /// intervals longer than a second, analysed and summed again. (A check-in whose samples
        /// retention dropped before keeps its sums: nothing is left to weigh them again from.)
        case secondsWeighed
        /// After the file that adds `venue.name_folded`: every venue's name folded as a search
        /// folds what it looks for.
        case venueNamesFolded
    }

    public static let steps: [Store: [String: Step]] = [
        .sqlite: [
            "0008_sample_columns": .samplesIntoColumns, "0010_histograms_as_bytes": .histogramsIntoBytes,
            "0012_histograms_dense": .histogramsDense, "0016_seconds_weighed": .secondsWeighed,
            "0017_venue_name_folded": .venueNamesFolded,
        ],
        .postgres: [
            "0007_sample_columns": .samplesIntoColumns, "0009_histograms_as_bytes": .histogramsIntoBytes,
            "0011_histograms_dense": .histogramsDense, "0015_seconds_weighed": .secondsWeighed,
            "0016_venue_name_folded": .venueNamesFolded,
        ],
    ]

    public static func files(for store: Store) throws -> [File] {
        guard let folder = Bundle.module.url(forResource: store.rawValue, withExtension: nil) else {
            throw Missing(description: "the migrations folder is missing from \(Bundle.module.bundlePath)")
        }
        let urls = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        return try urls.map { url in
            File(name: url.deletingPathExtension().lastPathComponent, sql: try String(contentsOf: url, encoding: .utf8))
        }
    }
}
