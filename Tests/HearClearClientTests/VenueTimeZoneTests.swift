import Foundation
import HearClearCore
import Testing

@testable import HearClearClient

/// The zone a new venue takes without --timezone (ClientTests has it end to end).
@Suite struct VenueTimeZoneTests {
    @Test func theTablesPlacesAreReadToTheSecond() throws {
        let andorra = try #require(VenueTimeZone.coordinate("+4230+00131"))
        #expect(abs(andorra.latitude - 42.5) < 1e-9 && abs(andorra.longitude - (1 + 31.0 / 60)) < 1e-9)
        let newYork = try #require(VenueTimeZone.coordinate("+404251-0740023"))
        #expect(abs(newYork.latitude - (40 + 42.0 / 60 + 51.0 / 3600)) < 1e-9 && abs(newYork.longitude + (74 + 0.0 / 60 + 23.0 / 3600)) < 1e-9)
        for wrong in ["", "+4230", "4230+00131", "+42x0+00131", "+4230+0131"] { #expect(VenueTimeZone.coordinate(wrong) == nil, "\(wrong)") }
        // Every zone of the system's table, none left out for its form.
        let lines = try String(contentsOfFile: VenueTimeZone.table, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(VenueTimeZone.places(in: VenueTimeZone.table).count == lines.count && lines.count > 300)
    }

    @Test func aComputersZoneIsTakenOnlyWhereItsClockIsTheVenues() throws {
        let places = VenueTimeZone.places(in: VenueTimeZone.table)
        let sydney = Coordinate(latitude: -33.87, longitude: 151.21)
        #expect(VenueTimeZone.nearestZone(to: sydney, among: places) == "Australia/Sydney")
        #expect(VenueTimeZone.nearestZone(to: Coordinate(latitude: 40.71, longitude: -74.0), among: places) == "America/New_York")
        let zone = { (name: String) in TimeZone(identifier: name)! }
        #expect(try VenueTimeZone.forNewVenue(at: sydney, computer: zone("Australia/Melbourne")) == "Australia/Melbourne")
        for computer in ["Etc/UTC", "GMT", "Etc/GMT-10", "Europe/London", "Australia/Brisbane"] {
            // Brisbane keeps no summer time: half the year its clock is an hour behind Sydney's.
            #expect(throws: VenueTimeZone.Unsure.self, "\(computer)") { try VenueTimeZone.forNewVenue(at: sydney, computer: zone(computer)) }
        }
        // Without the table: the computer's zone if it is a place's, never UTC.
        #expect(try VenueTimeZone.forNewVenue(at: sydney, computer: zone("Europe/London"), table: "/nonexistent") == "Europe/London")
        #expect(throws: VenueTimeZone.Unsure.self) { try VenueTimeZone.forNewVenue(at: sydney, computer: zone("Etc/UTC"), table: "/nonexistent") }
    }
}
