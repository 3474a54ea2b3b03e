import Foundation
import HearClearCore

/// Whether people can talk in a cell's noise: ISO 9921:2003's SIL method (Annex E), every constant
/// and its source in docs/analysis.md. The noise is the cell's speech interference level (SIL4, the
/// arithmetic mean of the energy-mean levels of the octave bands 500 Hz … 4 kHz); speech falls by
/// 20·lg(r) dB from 1 m to the listener at r; the margin between the two rates intelligibility.
public struct ConversationRules: Sendable, Equatable {
    /// How far the listener sits from the talker, metres (1 m: across a small table).
    public var listenerDistanceM: Double
    /// The extra margin a listener with hearing loss needs, dB. 7 dB is where the QuickSIN's
    /// "mild" SNR loss (3–7 dB) ends and "moderate" (7–15 dB) begins (Killion et al. 2004).
    public var hearingLossSNRDB: Double

    public static let standard = ConversationRules(listenerDistanceM: 1, hearingLossSNRDB: 7)

    /// For noise measured only as an A-weighted level (API v1 check-ins): ISO 9921:2003 gives
    /// SIL ≈ LA − 8 dB for common noise spectra.
    public static let silBelowLAeqDB = 8.0

    public init(listenerDistanceM: Double, hearingLossSNRDB: Double) {
        precondition(listenerDistanceM > 0 && hearingLossSNRDB >= 0)
        self.listenerDistanceM = listenerDistanceM
        self.hearingLossSNRDB = hearingLossSNRDB
    }

    /// The speech level at the listener for a vocal effort, dB(A); `nil` for `notPossible`.
    public func speechLevelAtListenerDB(_ effort: VocalEffort) -> Double? {
        effort.speechLevelAt1mDB.map { $0 - 20 * log10(listenerDistanceM) }
    }

    /// The least effort whose margin over `sil` reaches fair intelligibility, with `extraMarginDB`
    /// more for a listener who needs it.
    public func effort(sil: Double, extraMarginDB: Double = 0) -> VocalEffort {
        VocalEffort.allCases.first { effort in
            speechLevelAtListenerDB(effort).map { $0 - sil >= Intelligibility.fairMarginDB + extraMarginDB } ?? true
        }!
    }

    /// The intelligibility of a normal voice over `sil`.
    public func intelligibility(sil: Double) -> Intelligibility {
        Intelligibility(marginDB: speechLevelAtListenerDB(.normal)! - sil)
    }

    /// The answer for a cell: from its octave bands when any of its kept seconds carried them, else
    /// estimated from its A-weighted level; `nil` for a cell without data.
    public func conversation(in aggregate: LoudnessAggregate) -> Conversation? {
        guard let level = aggregate.levelDB else { return nil }
        let octaves = aggregate.details.octaveLevelsDB
        return conversation(level: level, sil: octaves.map { $0.reduce(0, +) / Double($0.count) }, estimated: false)
    }

    /// The answer for an estimated level of an hour nobody measured (`HourEstimates`): from its
    /// A-weighted level alone, and marked, so that it ranks after measured hours of equal effort.
    public func conversation(estimatedLevel level: Double) -> Conversation {
        conversation(level: level, sil: nil, estimated: true)
    }

    private func conversation(level: Double, sil measured: Double?, estimated: Bool) -> Conversation {
        let sil = measured ?? level - Self.silBelowLAeqDB
        return Conversation(
            levelDB: level, sil: sil, silEstimated: measured == nil, effort: effort(sil: sil),
            effortHearingLoss: effort(sil: sil, extraMarginDB: hearingLossSNRDB), intelligibility: intelligibility(sil: sil),
            estimated: estimated)
    }
}

/// What `ConversationRules` decide for one cell.
public struct Conversation: Sendable, Equatable {
    /// The cell's A-weighted level, dB.
    public var levelDB: Double
    public var sil: Double
    public var silEstimated: Bool
    public var effort: VocalEffort
    public var effortHearingLoss: VocalEffort
    /// At normal voice.
    public var intelligibility: Intelligibility
    /// Whether the level is an estimate for an hour nobody measured.
    public var estimated: Bool = false

    /// The one order of every ranking by conversation: the least effort first (for a listener with
    /// hearing loss, or not), then what was measured before what is estimated, then the quieter place,
    /// levels compared as answers show them (to the tenth): places that read the same are equal here,
    /// and a ranking orders them by what a person can see (nearer, earlier), not by hundredths.
    public func isEasier(than other: Conversation, hearingLoss: Bool = false) -> Bool {
        (effort(hearingLoss: hearingLoss), estimated ? 1 : 0, Level.rounded(levelDB))
            < (other.effort(hearingLoss: hearingLoss), other.estimated ? 1 : 0, Level.rounded(other.levelDB))
    }

    /// The effort for a listener with hearing loss, or with typical hearing.
    public func effort(hearingLoss: Bool) -> VocalEffort { hearingLoss ? effortHearingLoss : effort }
}
