import ArgumentParser
import Foundation
import HearClearClient
import HearClearCore

extension Hearclear {
    struct Quiet: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Venues near a place where conversation is easiest at a weekday and hour.",
            discussion: "Each venue is asked at that hour in its own time zone; venues without data then are listed last.")

        // Unconditional: "-33.87,151.21" starts with a minus sign, like an option.
        @Option(parsing: .unconditional, help: ArgumentHelp("The place, e.g. -33.87,151.21, or a venue's id.", valueName: "latitude,longitude|venue-id"))
        var near: String
        @Option(
            help: ArgumentHelp("Local weekday and hour, e.g. friday-20 or \"saturday 20:00\"; now, by this computer's clock, if left out or now.", valueName: "weekday-hour"),
            transform: AskedHour.typed)
        var at: AskedHour?
        @Flag var listener: Listener?
        @Option(help: "Metres around the place.") var radius: Double = 1000
        @Option(help: "At most this many venues.") var limit: Int = 20
        @Flag(help: "Print the server's JSON.") var json = false

        private var place: NearPlace {
            get throws {
                guard let place = NearPlace(near) else { throw ValidationError("--near must be \(NearPlace.rule)") }
                return place
            }
        }

        func validate() throws {
            _ = try place
        }

        func run() async throws {
            let setup = try Setup()
            let client = try setup.client()
            let asked = try place
            let place = try await asked.coordinate(client)
            let answer = try await client.ranking(
                near: place.latitude, place.longitude, at: (at ?? .now).weekdayHour(in: .current),
                hearingLoss: Listener.hearingLoss(listener, saved: setup.config), radius: radius, limit: limit)
            if json { return print(String(decoding: answer.json, as: UTF8.self)) }
            print(Terminal.standardOutput.ranking(answer.ranking, unit: "dB(A)", radius: radius, around: asked.venueID))
            if answer.ranking.venues.count == limit { print(Terminal.listedAtMost(limit) + ".") }
        }
    }
}
