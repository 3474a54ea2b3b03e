import Foundation
import LoopbackHTTP
import Testing

/// Was: CI failed once on a test that stops a server and starts it again on the same port (a
/// client's check-in waits while the server is down): "port 44541 on 127.0.0.1 is already in
/// use". Between the stop and the restart, with every end-to-end suite running at once, the
/// kernel had handed the released port to another test's socket.
@Suite struct ReservedPortTests {
    @Test func aStoppedServersPortIsKeptForItsRestartAndRefusesConnectionsMeanwhile() async throws {
        let database = try temporaryFolder().appendingPathComponent("restart.sqlite").path
        let first = try await ServerProcess(database: database)
        let reserved = try #require(first.reservedPort)
        #expect(reserved.port == first.port)
        await first.stop()

        #expect(!LoopbackSocket.canBind(reserved.port), "the stopped server's port could be taken")
        #expect(throws: LoopbackConnection.Failure.self, "a stopped server's port answers") { try LoopbackConnection(port: reserved.port) }
        let restarted = try await ServerProcess(database: database, port: reserved)
        #expect(restarted.port == first.port)
        #expect(try LoopbackConnection(port: restarted.port).send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
        await restarted.stop()
    }
}
