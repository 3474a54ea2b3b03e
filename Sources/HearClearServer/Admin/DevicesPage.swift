import Foundation
import HearClearAnalysis
import HearClearCore

enum DevicesPage {
    struct Model {
        let chrome: PageChrome
        let devices: [DeviceRow]
    }

    static func model(store: any AdminStore, session: AdminSession) async throws -> Model {
        Model(chrome: PageChrome(title: "Devices", csrf: session.csrfToken, section: "devices"), devices: try await store.devices().map(DeviceRow.init))
    }
}
