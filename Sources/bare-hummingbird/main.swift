import Foundation
import Hummingbird
import Logging

// The framework's ceiling for `make bench`: Hummingbird answering GET /healthz with "ok", nothing
// else (no middleware, the default logger at its default level). Listens on 127.0.0.1 and the port
// given as the only argument (0: a free one), and says where on standard error.
var logger = Logger(label: "bare")
logger.logLevel = .warning
let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 0 : 0
let router = Router()
router.get("healthz") { _, _ in "ok" }
let app = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
    onServerRunning: { channel in
        FileHandle.standardError.write("bare Hummingbird listening on http://127.0.0.1:\(channel.localAddress?.port ?? port)\n".data(using: .utf8)!)
    },
    logger: logger)
try await app.runService()
