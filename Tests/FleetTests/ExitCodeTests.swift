import ArgumentParser
import Foundation
@testable import TenantMigrateCLI
import Testing
import TenantMigrator

/// The exit code of a fleet command follows its report.
@Suite("Fleet exit codes")
struct FleetExitCodeTests {
    /// A report with one entry per outcome given.
    static func report(_ outcomes: [String], interrupted: Bool) throws -> FleetReport {
        let entries = outcomes.enumerated().map { index, outcome in
            #"{"tenant": "t\#(index)", "outcome": "\#(outcome)", "fromVersion": "v1", "toVersion": "v3", "milliseconds": 1}"#
        }
        let json = #"{"family": "Recipes", "target": "v3", "startedAt": 0, "milliseconds": 1, "interrupted": \#(interrupted), "entries": [\#(entries.joined(separator: ","))]}"#
        return try JSONDecoder().decode(FleetReport.self, from: Data(json.utf8))
    }

    /// The exit code the command ends with once it has printed the report.
    static func exitCode(_ report: FleetReport) -> Int32 {
        do {
            try OutputOptions<FleetRunReport>.parse([]).show(FleetRunReport(report: report, verb: "migrated"))
            return 0
        } catch let exit as ExitCode {
            return exit.rawValue
        } catch {
            return -1
        }
    }

    @Test func failuresExitOneInterruptionsExit130() throws {
        #expect(Self.exitCode(try Self.report(["migrated", "skipped"], interrupted: false)) == 0)
        #expect(Self.exitCode(try Self.report(["migrated", "failed"], interrupted: false)) == 1)
        // Pinned tenants were left alone on purpose: not a failure.
        #expect(Self.exitCode(try Self.report(["migrated", "pinned", "skipped"], interrupted: false)) == 0)
        #expect(Self.exitCode(try Self.report(["pinned", "failed"], interrupted: false)) == 1)
        // Ctrl-C with nothing failed.
        #expect(Self.exitCode(try Self.report(["migrated", "not-started"], interrupted: true)) == 130)
        // --fail-fast stopped the run: a failure, so 1, not the 130 of an interrupt.
        #expect(Self.exitCode(try Self.report(["failed", "not-started"], interrupted: true)) == 1)
    }
}
