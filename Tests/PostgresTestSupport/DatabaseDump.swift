import ChildProcesses
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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pg-dump-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dumpURL = directory.appendingPathComponent("dump.sql")
        let arguments = [pgDump, "--no-sync"] + (schema.map { ["--schema-only", "--no-owner", "--schema=\($0)"] } ?? []) + ["-d", conninfo]
        let errorsURL = directory.appendingPathComponent("stderr")
        let outcome = try await ChildProcess("/usr/bin/env", arguments, standardOutput: .file(dumpURL.path), standardError: .file(errorsURL.path)).finished()
        guard outcome.status == 0 else {
            throw TestFailure("pg_dump failed with status \(outcome.status): \((try? String(contentsOf: errorsURL, encoding: .utf8)) ?? "")")
        }
        let data = try Data(contentsOf: dumpURL)
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
