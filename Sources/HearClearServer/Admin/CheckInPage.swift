import Foundation
import HearClearAnalysis
import HearClearCore

enum CheckInPage {
    struct SampleRow {
        let t: String
        let avg: String
        let peak: String
        let dropped: Bool
    }

    struct EventRow {
        let t: String
        let peak: String
        let duration: String
    }

    struct Model {
        let chrome: PageChrome
        let checkIn: CheckInRow
        let localStart: String
        let timezone: String
        let calibration: String
        let reason: String
        let droppedReason: String?
        let chart: String
        let samples: [SampleRow]
        let events: [EventRow]
        let hasEvents: Bool
    }

    static func model(store: any AdminStore, id: UUID, scale: LabelScale, session: AdminSession) async throws -> Model? {
        guard let detail = try await store.checkInDetail(id: id) else { return nil }
        let verdict = detail.verdict
        let calibration = detail.calibrationDB
        let timeZone = TimeZone(identifier: detail.timezone) ?? .gmt
        let events = detail.events.map {
            EventRow(t: Charts.format($0.t), peak: String(format: "%.1f dB", $0.peak + calibration), duration: Charts.format($0.durationS))
        }
        return Model(
            chrome: PageChrome(title: "Check-in at \(detail.listing.venueName)", csrf: session.csrfToken, section: "venues"),
            checkIn: CheckInRow(detail.listing, scale: scale),
            localStart: Formatting.local(detail.listing.startedAt, timeZone: timeZone), timezone: detail.timezone,
            calibration: String(format: "%.1f dB (%@)", calibration, detail.calibrationSource == .checkIn ? "from the device" : "server side"),
            reason: reason(detail.listing, verdict: verdict),
            droppedReason: droppedReason(detail),
            chart: Charts.session(detail),
            samples: detail.samples.map {
                SampleRow(t: Charts.format($0.sample.t), avg: Charts.format($0.sample.avg + calibration), peak: Charts.format($0.sample.peak + calibration), dropped: $0.dropped)
            },
            events: events, hasEvents: !events.isEmpty)
    }
}

extension CheckInPage {
    /// Why its dropped samples were dropped, rule by rule (docs/analysis.md); nil when none were.
    /// Silence is told from its level; a check-in whose samples retention dropped says no more
    /// than how many.
    static func droppedReason(_ detail: CheckInDetail) -> String? {
        let dropped = detail.listing.droppedSamples
        guard dropped > 0 else { return nil }
        guard !detail.samples.isEmpty else { return "\(dropped.counted("sample")) dropped, as silence or spikes." }
        let silent = detail.samples.count { $0.dropped && Level.isSilence($0.sample.avg) }
        let spikes = dropped - silent
        return [
            silent > 0 ? "\(silent.counted("silent sample")) dropped: below \(Int(Level.silenceDBFS)) dBFS, no sound at all (a microphone muted, or giving zeros)." : nil,
            spikes > 0 ? "\(spikes.counted("spike sample")) dropped: each stood more than \(String(format: "%g × %g", Analysis.spikeSigmas, Analysis.madToSigma)) × MAD and \(String(format: "%g", Analysis.minimumSpikeDB)) dB away from the median of the \(2 * Analysis.spikeHalfWindow + 1) samples around it." : nil,
        ].compactMap { $0 }.joined(separator: " ")
    }

    /// Why the check-in counts or not, in the analysis' own terms (docs/analysis.md).
    static func reason(_ checkIn: CheckInListing, verdict: OutlierVerdict?) -> String {
        let kept = checkIn.samples - checkIn.droppedSamples
        if checkIn.status == .tooShort {
            return "Too short: \(kept) samples kept after dropping silence and spikes; a check-in needs \(Analysis.minimumKeptSamples) to count."
        }
        if checkIn.markedOutlier { return "Marked as an outlier by an operator: left out of the venue's loudness." }
        guard let verdict else { return "" }
        let scope = switch verdict.scope {
        case .sameWeekdayAndHour: "other check-ins at the same weekday and hour"
        case .sameHourAnyWeekday: "other check-ins at the same hour on any weekday (fewer than \(Analysis.minimumReferences) at this weekday and hour)"
        case .tooFewToDecide: ""
        }
        guard let median = verdict.median, let allowed = verdict.allowedDistance else {
            return "Counted: with \(verdict.references.counted("comparable check-in")) at this hour (fewer than \(Analysis.minimumReferences)), no outlier decision is made."
        }
        let comparison = "the median \(Formatting.level(median)) of \(verdict.references) \(scope)"
        let level = Formatting.level(checkIn.levelDB)
        return checkIn.status == .outlier
            ? "Outlier: \(level) is more than \(Charts.format(allowed)) dB from \(comparison). Left out of the venue's loudness."
            : "Counted: \(level) is within \(Charts.format(allowed)) dB of \(comparison)."
    }
}
