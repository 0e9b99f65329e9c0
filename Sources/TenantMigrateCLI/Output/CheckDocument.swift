import MigrationEngine
import TenantMigrator

/// What `check --json` prints: every adjacent pair both ways as `check` sees it, the SQL check of
/// the mapping expressions, and, when the check fails, the error object every `--json` failure
/// carries: `{"family", "versions", "steps": [{"source", "destination", "resolution", "mapping",
/// "reasons", "losses"}], "sqlChecked", "problems", "passed", "error": {"message", "sqlState"}}`.
struct CheckDocument: Encodable {
    struct Step: Encodable {
        let source: String
        let destination: String
        /// `mapped`, `inferred` or `impossible`.
        let resolution: String
        /// The mapping model's file, for a mapped step.
        let mapping: String?
        /// Why an impossible step cannot migrate.
        let reasons: [String]
        /// What the step archives or loses, as `check` lists it (`archived: …`, `lost: …`).
        let losses: [String]
    }

    let family: String
    let versions: [String]
    let steps: [Step]
    /// Whether the mapping expressions were checked against PostgreSQL (not with --offline, nor
    /// while a step is impossible).
    let sqlChecked: Bool
    let problems: [MappingExpressionProblem]
    let passed: Bool
    let error: ErrorDocument.Failure?

    init(migrator: TenantMigrator, checks: [MigrationPlanner.PairCheck], sqlChecked: Bool, problems: [MappingExpressionProblem], failure: (any Error)?) {
        family = migrator.family.name
        versions = migrator.family.versionNames
        steps = checks.map { check in
            let losses = check.step.map { LossListing($0.account).taggedLines } ?? []
            switch check.resolution {
            case let .mapped(origin, _, _):
                return Step(source: check.source, destination: check.destination, resolution: "mapped", mapping: origin, reasons: [], losses: losses)
            case .inferred:
                return Step(source: check.source, destination: check.destination, resolution: "inferred", mapping: nil, reasons: [], losses: losses)
            case let .impossible(reasons):
                return Step(source: check.source, destination: check.destination, resolution: "impossible", mapping: nil, reasons: reasons, losses: [])
            }
        }
        self.sqlChecked = sqlChecked
        self.problems = problems
        passed = failure == nil
        error = failure.map { ErrorDocument($0).error }
    }
}
