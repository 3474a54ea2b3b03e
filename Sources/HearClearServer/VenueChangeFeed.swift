import Foundation
import Synchronization

/// Counts changes per venue (and for all at once), so caches of encoded answers know when to let
/// go: a store tells it after each commit that may change a venue's answers (PostgreSQL also
/// relays what other servers commit), and a cache compares counts, which costs no database access.
public final class VenueChangeFeed: Sendable {
    private let counts = Mutex<(all: UInt64, venues: [String: UInt64], data: UInt64)>((0, [:], 0))
    /// Names this feed in what its store tells other servers, so that it does not hear its own news
    /// again (and drop answers cached since) when PostgreSQL relays it back.
    public let id = UUID().uuidString

    /// Told of each venue touched, after its count moved (the answer cache makes its answers again).
    private let observers = Mutex<[@Sendable (String) -> Void]>([])

    public init() {}

    public func touch(_ venueID: String) {
        counts.withLock {
            $0.venues[venueID, default: 0] += 1
            $0.data += 1
        }
        for observer in observers.withLock({ $0 }) { observer(venueID) }
    }

    /// Calls `observer` with every venue touched from now on, on the toucher's thread: it must return at once.
    func observe(_ observer: @escaping @Sendable (String) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// Every venue may have changed (a rebuild, or changes this process may have missed).
    public func touchAll() {
        counts.withLock {
            $0.all += 1
            $0.data += 1
        }
    }

    /// Every venue's answers changed though no data did: the estimates were fitted again.
    func touchAnswers() {
        counts.withLock { $0.all += 1 }
    }

    /// Moves with every change of data anywhere (not with `touchAnswers`).
    var dataChanges: UInt64 {
        counts.withLock { $0.data }
    }

    public func count(for venueID: String) -> UInt64 {
        counts.withLock { $0.all << 32 | ($0.venues[venueID] ?? 0) }
    }
}
