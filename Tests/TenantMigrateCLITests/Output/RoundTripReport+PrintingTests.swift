import Foundation
import MigrationEngine
@testable import TenantMigrateCLI
import Testing

/// `check --round-trip`'s advice fits the failure: `loses:` for values that did not come back,
/// fixing the step for a trip that stopped at an error (issue 20).
@Suite("check --round-trip advice")
struct RoundTripReportPrintingTests {
    static func trip(_ json: String) throws -> RoundTripResult {
        try JSONDecoder().decode(RoundTripResult.self, from: Data(json.utf8))
    }

    @Test func theAdviceFitsTheFailure() throws {
        let stopped = try Self.trip(#"{"path": ["v1", "v2", "v1"], "rows": 10, "differences": [], "excused": 0, "error": "ERROR 23502: null value in column \"priority\""}"#)
        let lossy = try Self.trip(#"""
            {"path": ["v2", "v3", "v2"], "rows": 10, "excused": 0,
             "differences": [{"table": "recipe", "column": "type", "row": "3", "before": "\"Meat\"", "after": "\"Entrée\""}]}
            """#)

        let error = RoundTripReport.failureSummary([stopped], of: 4)
        #expect(error.contains("1 of 4 round trips") && error.contains("fix the mapping or the model") && !error.contains("loses:"), "\(error)")
        let values = RoundTripReport.failureSummary([lossy], of: 4)
        #expect(values.contains("under `loses:`") && !values.contains("fix the mapping or the model"), "\(values)")
        let both = RoundTripReport.failureSummary([stopped, lossy], of: 4)
        #expect(both.contains("v1 → v2 → v1, v2 → v3 → v2") && both.contains("loses:") && both.contains("fix the mapping"), "\(both)")
    }
}
