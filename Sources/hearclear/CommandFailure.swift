/// What stops a command while it runs — the device not registered, a venue the server does not
/// know, a recording too narrow for speech and music — said alone. ArgumentParser follows a
/// `ValidationError` with the program's usage, which is for a command line that is wrong.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
