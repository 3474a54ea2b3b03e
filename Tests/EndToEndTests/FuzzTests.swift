import Foundation
import LoopbackHTTP
import HearClearCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The whole API fuzzed from its OpenAPI document by schemathesis (installed by `make test` into
/// .venv): no answer may be a server error or differ from the document.
@Suite struct FuzzTests {
    static let schemathesis = Executable.packageFolder.appendingPathComponent(".venv/bin/schemathesis")
    static let document = Executable.packageFolder.appendingPathComponent("docs/openapi.yaml")

    @Test func schemathesisFindsNoServerErrorAndNoAnswerOutsideTheDocument() async throws {
        let folder = try temporaryFolder()
        let server = try await ServerProcess(database: folder.appendingPathComponent("fuzz.sqlite").path, environment: ["HEARCLEAR_RATE_LIMIT": "0"])
        var request = URLRequest(url: server.url.appendingPathComponent("api/v1/devices"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"model": "fuzzer", "platform": "linux"}"#.utf8)
        let (body, _) = try await URLSession.shared.data(for: request)
        let token = try JSONDecoder().decode(DeviceCredentials.self, from: body).token

        // Deleting the device ends its token: that operation goes last, on its own, so the others
        // are fuzzed with a token that works (else they would see nothing but 401).
        for operations in [["--exclude-operation-id", "deleteDevice"], ["--include-operation-id", "deleteDevice"]] {
            let result = try await Executable.run(
                program: Self.schemathesis,
                [
                    "run", Self.document.path, "--url", server.url.absoluteString,
                    "--checks", "not_a_server_error,response_schema_conformance",
                    "--max-examples", "50", "--continue-on-failure", "--seed", "1", "--no-color",
                    // The meter's design is fitted on the first request for each rate: tens of
                    // milliseconds released, seconds in this debug build while the suite loads both cores.
                    "--request-timeout", "60",
                    "-H", "Authorization: Bearer \(token)",
                ] + operations,
                environment: ["HOME": folder.path], in: folder)  // its cache goes to the temporary folder, not the checkout
            #expect(result.status == 0, "\(result.output.suffix(4000))")
            let summary = result.output.split(separator: "\n").first { $0.contains("generated,") }
            #expect(summary?.contains("passed") == true, "\(summary ?? "no summary")")
            #expect(!result.output.contains("Authentication failed"), "\(result.output.suffix(2000))")
        }
        await server.stop()
        #expect(!server.log.contains(" 500 "))
    }
}
