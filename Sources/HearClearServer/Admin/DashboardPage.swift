import Foundation
import HearClearAnalysis
import HearClearCore

enum DashboardPage {
    struct Model {
        let chrome: PageChrome
        let totals: [Count]
        let droppedShare: String
        let outlierShare: String
        let tooShortShare: String
        let recentVenues: [VenueRow]
        let recentDevices: [DeviceRow]
        let latest: CheckInTable
        let thrownOut: CheckInTable
        let dailyChart: String
    }

    static func model(store: any AdminStore, scale: LabelScale, session: AdminSession, now: Date) async throws -> Model {
        let read = try await store.dashboard(recent: 5, days: 30, until: now)
        let totals = read.totals
        return Model(
            chrome: PageChrome(title: "Dashboard", csrf: session.csrfToken, section: "dashboard"),
            totals: [
                Count(totals.venues, "venue"), Count(totals.devices, "device"), Count(totals.checkIns, "check-in"), Count(totals.samples, "sample"),
            ],
            droppedShare: Formatting.share(totals.droppedSamples, of: totals.samples),
            outlierShare: Formatting.share(totals.outlierCheckIns, of: totals.checkIns),
            tooShortShare: Formatting.share(totals.tooShortCheckIns, of: totals.checkIns),
            recentVenues: read.recentVenues.map { VenueRow($0) }, recentDevices: read.recentDevices.map(DeviceRow.init),
            latest: CheckInTable(checkInRows: read.recentCheckIns.map { CheckInRow($0, scale: scale) }),
            thrownOut: CheckInTable(checkInRows: read.leftOutCheckIns.map { CheckInRow($0, scale: scale) }),
            dailyChart: Charts.dailyBars(read.perDay))
    }
}
