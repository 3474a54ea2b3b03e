import ArgumentParser
import Foundation
import HearClearClient
import HearClearCore

extension Hearclear {
    struct OutboxCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "outbox",
            abstract: "List the check-ins waiting to go up and those the server refused; send refused ones again, or discard them.",
            discussion: "A check-in is set aside only when the server itself refused its content (the reason is kept next to it). After fixing the cause (e.g. adding the venue), `--retry ID` or `--all` puts it back in the queue for `hearclear sync`; `--discard ID` deletes one for good.")

        @Option(help: ArgumentHelp("Put this refused check-in back in the queue.", valueName: "id")) var retry: String?
        @Flag(help: "Put every refused check-in back in the queue.") var all = false
        @Option(help: ArgumentHelp("Delete this refused check-in for good.", valueName: "id")) var discard: String?
        @Flag(help: "List as JSON.") var json = false

        func validate() throws {
            if [retry != nil, all, discard != nil].filter({ $0 }).count > 1 { throw ValidationError("use one of --retry ID, --all and --discard ID") }
        }

        func run() async throws {
            let outbox = Outbox(paths: try Setup().paths)
            if let discard {
                guard try outbox.discard(discard) else { throw CommandFailure("no refused check-in has the id \(discard): `hearclear outbox` lists them") }
                return print("Check-in \(discard) discarded: it will not be sent.")
            }
            if all || retry != nil {
                let ids = all ? try outbox.rejected().map(\.id) : [retry!]
                for id in ids {
                    guard try outbox.retry(id) else { throw CommandFailure("no refused check-in has the id \(id): `hearclear outbox` lists them") }
                }
                print("\(ids.count.counted("check-in")) back in the queue: `hearclear sync` sends \(ids.count == 1 ? "it" : "them").")
                return
            }
            // One file decoded at a time, for its count of intervals.
            let waiting = try outbox.pending().map { Entry(id: $0.id.wireString, venueID: $0.venueID, startedAt: $0.startedAt, intervals: try? $0.checkIn().samples.count, reason: nil) }
            let rejected = try outbox.rejected().map { entry in
                let pending = PendingCheckIn.read(entry.file)
                return Entry(id: entry.id, venueID: pending?.venueID, startedAt: pending?.startedAt, intervals: try? pending?.checkIn().samples.count, reason: entry.reason)
            }
            if json { return try printJSON(Listing(waiting: waiting, rejected: rejected)) }
            if waiting.isEmpty && rejected.isEmpty { return print("Nothing waits to go up, and the server refused nothing.") }
            // A heading over nothing says nothing: each list is shown only when it holds something.
            if !waiting.isEmpty {
                print("Waiting to go up (\(waiting.count)):")
                for entry in waiting { print("  " + entry.line) }
            }
            if !rejected.isEmpty {
                print("Refused by the server (\(rejected.count)):")
                for entry in rejected { print("  " + entry.line + "\n      " + (entry.reason ?? "")) }
                print("`hearclear outbox --retry ID` (or --all) sends refused ones again with the next sync; `--discard ID` deletes one for good.")
            }
        }

        struct Listing: Encodable {
            let waiting: [Entry]
            let rejected: [Entry]
        }

        struct Entry: Encodable {
            let id: String
            let venueID: String?
            let startedAt: Date?
            let intervals: Int?
            let reason: String?

            var line: String {
                let started = startedAt.map { ISO8601DateFormatter().string(from: $0) } ?? "unreadable"
                return "\(id)  \(venueID ?? "?")  started \(started)  \(intervals.map(String.init) ?? "?") intervals"
            }

            enum CodingKeys: String, CodingKey {
                case id, reason, intervals
                case venueID = "venue_id"
                case startedAt = "started_at"
            }
        }
    }

    struct Forget: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete this device on the server with every check-in it uploaded, then its registration and outbox here.",
            discussion: "The server deletes the device, its check-ins and their samples, and recomputes the venues' loudness without them; the token stops working. Venues this device created stay, without an owner.")

        @Flag(help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            let setup = try Setup()
            let client = try setup.client(needsToken: true)
            let server = client.server.absoluteString
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    throw CommandFailure("this deletes device \(setup.config.deviceID ?? "?") and its check-ins on \(server) for good: add --yes to confirm")
                }
                print("Delete device \(setup.config.deviceID ?? "?") and every check-in it uploaded from \(server), and the check-ins waiting here? [y/N] ", terminator: "")
                guard let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased(), ["y", "yes"].contains(answer) else {
                    print("Nothing deleted.")
                    return
                }
            }
            do {
                try await client.forget()
            } catch let failure as APIClient.Failure {
                guard case .server(401, _, _) = failure else {
                    throw CommandFailure("nothing deleted: \(failure)")
                }
                note("The server no longer knew this device.")
            }
            var config = setup.config
            config.deviceID = nil
            config.token = nil
            try config.save(to: setup.paths.configFile)
            try Outbox(paths: setup.paths).clear()
            print("Deleted device \(setup.config.deviceID ?? "?") and its check-ins from \(server); its registration and the check-ins waiting here are gone too.")
        }
    }
}
