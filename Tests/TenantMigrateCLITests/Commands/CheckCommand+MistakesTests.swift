import Foundation
import PostgresTestSupport
import Testing
import TypedSQL

/// Issue 35: `check` and `plan` catch, before any tenant runs it, what the first real `migrate`
/// would fail on, in every output format, naming the mapping and the attribute, and exit non-zero.
@Suite("check: the first run's mistakes, found up front")
struct CheckCommandMistakesTests {
    /// `tenant-migrate <arguments> --migrations <the mistake's family>`.
    func run(_ arguments: [String], _ mistake: BugTrackerMistake, database conninfo: String? = nil) async throws -> TenantMigrateExecutable.Output {
        if let conninfo { return try await TenantMigrateExecutable.run(arguments, database: conninfo, migrations: mistake.directory) }
        return try await TenantMigrateExecutable.run(arguments + ["--migrations", mistake.directory.path])
    }

    /// The text, JSON, Markdown and HTML forms of `check`, and `plan`, all refuse the step and name
    /// `mapping` and `property`.
    func expectRefused(_ mistake: BugTrackerMistake, mapping: String, property: String) async throws {
        for format in [["--format", "text"], ["--format", "markdown"], ["--format", "html"], ["--json"]] {
            let check = try await run(["check", "--offline"] + format, mistake)
            let said = check.stdout + check.stderr
            #expect(check.status == 1, "\(format): \(said)")
            #expect(said.contains("mapping \(mapping)") && said.contains(property), "\(format): \(said)")
            if format == ["--json"] {
                let document = try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any]
                let message = (document?["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(message.contains("mapping \(mapping)") && message.contains(property), "\(check.stdout)")
            }
        }
        let plan = try await run(["plan", "--offline", "--from", "v2", "--to", "v3"], mistake)
        #expect(plan.status != 0 && plan.stderr.contains("mapping \(mapping)") && plan.stderr.contains(property), "\(plan.stdout)\n\(plan.stderr)")
    }

    @Test func aRequiredAttributeThatNoMappingFillsIsRefused() async throws {
        try await expectRefused(try .statusNameUnset(), mapping: "IssueToStatus", property: "Status.name")
    }

    @Test func aRequiredToOneThatNoMappingLinksIsRefused() async throws {
        try await expectRefused(try .statusUnlinked(), mapping: "IssueToIssue", property: "Issue.status")
    }

    /// No false refusal: the stock families, with Swift policies (which fill what they write) and
    /// declarative, pass.
    @Test func theStockFamiliesPass() async throws {
        let recipes = PackagePaths.migrationFamily("Recipes").path
        for arguments in [["--migrations", recipes], ["--migrations", recipes, "--mappings", recipes + "/Mappings/Declarative"],
                          ["--migrations", PackagePaths.bugTrackerFamily.path]] {
            let check = try await TenantMigrateExecutable.run(["check", "--offline"] + arguments)
            #expect(check.status == 0, "\(arguments): \(check.stdout)\n\(check.stderr)")
        }
    }

    /// A `distinct:` key over a column that does not exist: every format runs the SQL check, reports
    /// 42703 and exits as plain `check` does.
    @Test func everyFormatRunsTheSQLCheck() async throws {
        let mistake = try BugTrackerMistake.distinctOnAMissingColumn()
        try await TestPostgres.withDatabaseURL { conninfo in
            let text = try await run(["check"], mistake, database: conninfo)
            #expect(text.status == 1 && text.stderr.contains("42703") && text.stderr.contains("IssueToStatus"), "\(text.stdout)\n\(text.stderr)")
            for format in ["markdown", "html"] {
                let document = try await run(["check", "--format", format], mistake, database: conninfo)
                #expect(document.status == text.status, "\(format): \(document.stderr)")
                #expect(document.stdout.contains("42703") && document.stdout.contains("mapping IssueToStatus: the distinct key"), "\(format): \(document.stdout)")
            }
            let json = try await run(["check", "--json"], mistake, database: conninfo)
            #expect(json.status == text.status, "\(json.stderr)")
            let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            let error = document?["error"] as? [String: Any]
            #expect((error?["message"] as? String)?.contains("42703") == true, "\(json.stdout)")

            // The family as it should be: every format passes.
            for format in [["--format", "text"], ["--format", "html"], ["--json"]] {
                let good = try await TenantMigrateExecutable.run(["check"] + format, database: conninfo, migrations: PackagePaths.bugTrackerFamily)
                #expect(good.status == 0, "\(format): \(good.stdout)\n\(good.stderr)")
            }
        }
    }

    /// The text's verdict agrees with the exit status: a mapping expression that is not valid SQL
    /// leaves the steps plannable but not migratable, and stdout says so rather than "can migrate".
    @Test func theTextDoesNotSayThatAStepWhoseSQLFailsCanMigrate() async throws {
        let mistake = try BugTrackerMistake.distinctOnAMissingColumn()
        try await TestPostgres.withDatabaseURL { conninfo in
            let text = try await run(["check"], mistake, database: conninfo)
            #expect(text.status == 1 && text.stderr.contains("42703"), "\(text.stderr)")
            #expect(!text.stdout.contains("can migrate"), "\(text.stdout)")
            #expect(text.stdout.contains("steps can be planned, but 1 mapping expression is not valid SQL: a step that runs it cannot migrate until it is fixed"),
                    "\(text.stdout)")
        }
    }

    /// A YAML syntax error in a mapping model is said as in a version file: the file, the line and
    /// the problem in one sentence, not the YAML parser's own dump (`6:16: error: parser: while
    /// parsing a flow sequence…\n…^`); check, plan and migrate alike, nothing run.
    @Test func aMappingModelThatIsNotYAMLIsSaidAsAVersionFileIs() async throws {
        let mistake = try BugTrackerMistake(["Mappings/v2-to-v3.yaml": {
            $0.replacingOccurrences(of: "distinct: \"lower(btrim(source.status))\"", with: "distinct: [lower(btrim(source.status))")
        }])
        try await TestPostgres.withDatabaseURL { conninfo in
            for arguments in [["check"], ["plan", "--from", "v2", "--to", "v3"], ["migrate", "--all"]] {
                let output = try await run(arguments, mistake, database: conninfo)
                #expect(output.status == 1, "\(arguments): \(output.stderr)")
                #expect(output.stderr.hasPrefix("Error: BugTracker/Mappings/v2-to-v3.yaml:")
                        && output.stderr.hasSuffix(": this is not valid YAML: did not find expected ',' or ']'.\n")
                        && output.stderr.split(separator: "\n").count == 1 && !output.stderr.contains("parser"), "\(arguments): \(output.stderr)")
            }
        }
    }

    /// The account of the Markdown and HTML documents (`check`, `plan`) says which rows in model
    /// terms: no SQL predicate, no `{schema}` placeholder where a sentence belongs. The predicate
    /// stays available in a detail, written for the schema.
    @Test func theAccountSaysWhichRowsInWords() async throws {
        let family = ["--migrations", PackagePaths.bugTrackerFamily.path]
        for arguments in [["check", "--offline"], ["plan", "--offline", "--from", "v3", "--to", "v2"], ["plan", "--offline", "--from", "v2", "--to", "v3"]] {
            for format in ["markdown", "html"] {
                let output = try await TenantMigrateExecutable.run(arguments + ["--format", format] + family)
                #expect(output.status == 0, "\(arguments) \(format): \(output.stderr)")
                #expect(!output.stdout.contains("{schema}"), "\(arguments) \(format)")
                // The account's rows, without their SQL details.
                let rows = format == "markdown" ? output.stdout.split(separator: "\n").filter { $0.hasPrefix("| ") }.joined(separator: "\n")
                    : output.stdout.components(separatedBy: "<tbody>").dropFirst().map { $0.components(separatedBy: "</tbody>")[0] }.joined()
                #expect(!rows.isEmpty && !rows.contains("SELECT") && !rows.contains("source.\""), "\(arguments) \(format): \(rows)")
                #expect(output.stdout.localizedCaseInsensitiveContains("which rows, as SQL"), "\(arguments) \(format)")
            }
        }
    }
}
