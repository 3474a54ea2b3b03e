/// The writes that bring a venue's stored cells in step (`Analysis.cellWrites`): first the
/// deletions, then each cell in `written` inserted or, where one is stored, replaced.
public struct CellWrites: Equatable, Sendable {
    public enum Deletion: Equatable, Sendable {
        case none
        /// Every cell of the venue.
        case every
        /// These cells: nothing counts in them any more.
        case cells(Set<LocalHour>)
    }

    public var deleted: Deletion
    /// In cell order, so that the same change is written alike every time.
    public var written: [LoudnessAggregate]

    public init(deleting deleted: Deletion, writing written: [LoudnessAggregate]) {
        self.deleted = deleted
        self.written = written.sorted { $0.cell < $1.cell }
    }
}
