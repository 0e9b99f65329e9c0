import Foundation
import LibPQ
import PostgresTestSupport
import Testing

/// `--tenant NAME` of the commands that look at every tenant or one (`archive list`, `archive
/// prune`, `online cleanup`, `history`): a name that is no tenant is an error that names it, as
/// `migrate --tenant` does, not an empty report and exit 0.
@Suite("--tenant of a tenant that is not there")
struct TenantFilterOptionsTests {
    static let lookers = [["archive", "list"], ["archive", "prune", "--older-than", "1d"], ["online", "cleanup"], ["history"]]

    @Test func aTenantThatIsNotThereIsNamed() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            // Before any catalog, and after.
            for created in [false, true] {
                if created { #expect(try await tracker(["tenant", "create", "acme", "--version", "v1"], on: conninfo).status == 0) }
                for command in Self.lookers {
                    let output = try await tracker(command + ["--tenant", "acmee"], on: conninfo)
                    #expect(output.status == 1 && output.stderr == "Error: no tenant named acmee (see `tenant list`)\n", "\(command): \(output.stdout)\(output.stderr)")
                    let json = try await tracker(command + ["--tenant", "acmee", "--json"], on: conninfo)
                    let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
                    #expect(json.status == 1 && (document?["error"] as? [String: Any])?["message"] as? String == "no tenant named acmee (see `tenant list`)",
                            "\(command): \(json.stdout)")
                    let badName = try await tracker(command + ["--tenant", "Acme-Corp"], on: conninfo)
                    #expect(badName.status != 0 && badName.stderr.contains("invalid tenant name \"Acme-Corp\""), "\(command): \(badName.stderr)")
                }
            }
            // The tenant that is there: each command runs.
            for command in Self.lookers {
                let output = try await tracker(command + ["--tenant", "acme"], on: conninfo)
                #expect(output.status == 0, "\(command): \(output.stderr)")
            }
            // A dropped tenant keeps its history.
            #expect(try await tracker(["tenant", "drop", "acme", "--yes-drop-data"], on: conninfo).status == 0)
            let history = try await tracker(["history", "--tenant", "acme"], on: conninfo)
            #expect(history.status == 0 && history.stdout.contains("drop"), "\(history.stdout)\(history.stderr)")
        }
    }
}
