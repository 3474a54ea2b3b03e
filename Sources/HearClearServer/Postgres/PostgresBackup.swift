import Foundation

/// `backup` on PostgreSQL: PostgreSQL's own `pg_dump`, which reads one consistent snapshot while
/// the servers go on writing. A custom-format file; `pg_restore -d URL FILE` loads it.
public enum PostgresBackup {
    public static func dump(_ address: PostgresAddress, to path: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "pg_dump", "--format=custom", "--file=\(path)", "--host=\(address.host)", "--port=\(address.port)", "--username=\(address.username)",
            "--no-password", address.database,
        ]
        var environment = ProcessInfo.processInfo.environment
        // The password goes through the environment, never the command line others can read.
        if let password = address.password { environment["PGPASSWORD"] = password }
        process.environment = environment
        do {
            try process.run()
        } catch {
            throw StartFailure(description: "cannot run pg_dump (install PostgreSQL's client tools, e.g. Debian's postgresql-client): \(error)")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw StartFailure(description: "pg_dump failed with status \(process.terminationStatus); see its message above")
        }
    }
}
