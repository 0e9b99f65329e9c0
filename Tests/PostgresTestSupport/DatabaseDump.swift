import Foundation

extension TestPostgres {
    /// `pg_dump` of a whole database, schema and data, for tests that prove nothing changed; with
    /// `schema`, the definitions of that schema only (no data, no owners).
    ///
    /// Uses the test server's own `pg_dump` when the tests started the server, else the one on
    /// PATH. Lines that differ between two dumps of the same content (recent versions guard the
    /// script with a random `\restrict` key) are left out.
    public static func dump(_ conninfo: String, schema: String? = nil) async throws -> String {
        let server = try await TestPostgres.server()
        let pgDump = server.embedded.map { $0.binDirectory.appendingPathComponent("pg_dump").path } ?? "pg_dump"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [pgDump, "--no-sync"] + (schema.map { ["--schema-only", "--no-owner", "--schema=\($0)"] } ?? []) + ["-d", conninfo]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("pg_dump failed with status \(process.terminationStatus): \(String(decoding: errorData, as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("\\restrict ") && !$0.hasPrefix("\\unrestrict ") }.joined(separator: "\n")
    }

    /// The lines only one of two dumps has, `-` for the first and `+` for the second.
    public static func dumpChanges(_ before: String, _ after: String) -> [String] {
        let old = before.split(separator: "\n").map(String.init), new = after.split(separator: "\n").map(String.init)
        return new.difference(from: old).map { change in
            switch change {
            case let .insert(_, line, _): return "+ " + line
            case let .remove(_, line, _): return "- " + line
            }
        }
    }
}
