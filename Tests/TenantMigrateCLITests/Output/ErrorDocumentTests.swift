import Foundation
import LibPQ
import PostgresTestSupport
import Testing

/// With `--json`, stdout holds exactly one JSON document, in success and in failure; a run that
/// fails before it starts prints an error object (issue 20).
@Suite("One JSON document")
struct ErrorDocumentTests {
    /// stdout parsed as one JSON document: trailing text, or a second document, fails the parse.
    static func document(_ output: TenantMigrateExecutable.Output) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(output.stdout.utf8))
    }

    /// The error object's message, when stdout is one.
    static func errorMessage(_ output: TenantMigrateExecutable.Output) throws -> String? {
        ((try document(output) as? [String: Any])?["error"] as? [String: Any])?["message"] as? String
    }

    @Test func everyCommandPrintsOneDocumentWhetherItSucceedsOrNot() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let created = try await tracker(["tenant", "create", "alpha", "beta", "--version", "v1", "--json"], on: conninfo)
            let createdReport = try Self.document(created) as? [String: Any]
            #expect(created.status == 0 && createdReport?["entries"] != nil, "\(created.stdout)\(created.stderr)")
            let connection = try Connection(conninfo)
            try connection.execute("INSERT INTO tenant_beta.issue (title, prio) VALUES ('small', 3), ('big', 40000)")

            for arguments in [["status", "--json"], ["tenant", "list", "--json"], ["verify", "--json"], ["history", "--json"],
                              ["plan", "--tenant", "alpha", "--json"], ["migrate", "--tenant", "alpha", "--json"]] {
                let output = try await tracker(arguments, on: conninfo)
                #expect(output.status == 0, "\(arguments): \(output.stderr)")
                #expect(throws: Never.self, "\(arguments): \(output.stdout)") { try Self.document(output) }
            }
            // A failing tenant: the report is the document, one shape for --all and --tenant, with
            // the error object in it; the error also goes to stderr.
            let fleet = try await tracker(["migrate", "--all", "--json"], on: conninfo)
            let report = try #require(try Self.document(fleet) as? [String: Any], "\(fleet.stdout)")
            #expect(fleet.status == 1 && (report["summary"] as? [String: Any])?["failed"] as? Int == 1, "\(fleet.stdout)")
            let single = try await tracker(["migrate", "--tenant", "beta", "--json"], on: conninfo)
            let document = try #require(try Self.document(single) as? [String: Any], "\(single.stdout)")
            let results = document["entries"] as? [[String: Any]] ?? []
            #expect(single.status == 1 && results.first?["outcome"] as? String == "failed" && results.first?["sqlState"] as? String == "22003")
            #expect((document["error"] as? [String: Any])?["sqlState"] as? String == "22003", "\(single.stdout)")
            #expect((report["error"] as? [String: Any])?["sqlState"] as? String == "22003", "\(fleet.stdout)")
            #expect(single.stderr.contains("Error: tenant beta"), "\(single.stderr)")
        }
    }

    @Test func aRunThatFailsBeforeItStartsPrintsAnErrorObject() async throws {
        // Nothing listens on the port: refused at once, not retried for --reconnect-timeout (600 s
        // here). It takes well under a second; the bound leaves a busy machine room to start the
        // process (the session's own test bounds the refusal itself by 10 s).
        let port = try UnusedPort.next()
        let started = ContinuousClock.now
        let refused = try await TenantMigrateExecutable.run([
            "migrate", "--all", "--json", "--reconnect-timeout", "600",
            "--database-url", "host=127.0.0.1 port=\(port)", "--migrations", PackagePaths.trackerFamily.path,
        ])
        let elapsed = ContinuousClock.now - started
        // Retrying would take the whole 600 s; 300 s leaves a busy machine room to start the process.
        #expect(elapsed < .seconds(300), "took \(elapsed)")
        #expect(refused.status == 1)
        let message = try #require(try Self.errorMessage(refused), "\(refused.stdout)")
        #expect(message.contains("port \(port): Connection refused. Is the server running"), "\(message)")
        #expect(refused.stderr.contains("Error: could not connect to PostgreSQL"), "\(refused.stderr)")

        // No family where the models should be.
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("no-models-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let noModels = try await TenantMigrateExecutable.run(["status", "--json", "--migrations", empty.path, "--database-url", "host=127.0.0.1 port=\(port)"])
        let noModelsMessage = try Self.errorMessage(noModels)
        #expect(noModels.status != 0 && noModelsMessage?.contains("no model family found in \(empty.path)") == true, "\(noModels.stdout)")

        // An option that does not validate.
        let badOption = try await TenantMigrateExecutable.run(["migrate", "--all", "--jobs", "0", "--json"])
        let badOptionMessage = try Self.errorMessage(badOption)
        #expect(badOption.status != 0 && badOptionMessage?.contains("--jobs must be at least 1") == true, "\(badOption.stdout)")
    }
}
