import ArgumentParser
import HearClearClient

extension Hearclear {
    struct Hearing: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say whose hearing the conversation answers are for: typical, or with hearing loss.",
            discussion: "Saved in the config: `loudness --effort` and `quiet` then answer for it, unless --hearing-loss or --typical-hearing says otherwise for one command.")

        enum Choice: String, ExpressibleByArgument, CaseIterable {
            case typical, loss
        }

        @Argument(help: "typical or loss; without one, shows the saved choice.") var choice: Choice?

        func run() async throws {
            let setup = try Setup()
            var config = setup.config
            guard let choice else {
                print(config.hearingLoss == true
                    ? "Answers are for a listener with hearing loss. `hearclear hearing typical` answers for typical hearing."
                    : "Answers are for typical hearing. `hearclear hearing loss` answers for a listener with hearing loss.")
                return
            }
            config.hearingLoss = choice == .loss ? true : nil
            try config.save(to: setup.paths.configFile)
            print(choice == .loss
                ? "Saved: `loudness --effort` and `quiet` answer for a listener with hearing loss (--typical-hearing for one command)."
                : "Saved: `loudness --effort` and `quiet` answer for typical hearing (--hearing-loss for one command).")
        }
    }

    /// Whose hearing one command answers for, when it says: `--hearing-loss` or `--typical-hearing`.
    enum Listener: EnumerableFlag {
        case hearingLoss, typicalHearing

        static func help(for value: Self) -> ArgumentHelp? {
            switch value {
            case .hearingLoss: "For a listener with hearing loss (`hearclear hearing loss` makes it the default)."
            case .typicalHearing: "For typical hearing, whatever `hearclear hearing` saved."
            }
        }

        /// Hearing loss when the command says so, or says nothing and the saved choice is.
        static func hearingLoss(_ said: Self?, saved config: ClientConfig) -> Bool {
            said.map { $0 == .hearingLoss } ?? (config.hearingLoss == true)
        }
    }
}
