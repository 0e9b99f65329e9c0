import MigrationEngine
import TenantMigrator
import TypedSQL

/// `check` and `plan`: the mapping models' filters and expressions, checked against PostgreSQL
/// before any tenant runs them.
enum MappingExpressionCheck {
    /// Checks the mapping models (those between `source` and `destination`, when given).
    ///
    /// - Throws: ``CLIError`` listing each problem (see ``failure(_:)``).
    static func run(on migrator: TenantMigrator, from source: String? = nil, to destination: String? = nil) async throws {
        if let failure = failure(try await migrator.checkMappingExpressions(from: source, to: destination)) { throw failure }
    }

    /// The error that lists `problems`, one a line as `file:line: mapping …: … is not valid SQL:
    /// ERROR <SQLSTATE>: <PostgreSQL's message>`; nil when there are none.
    static func failure(_ problems: [MappingExpressionProblem]) -> CLIError? {
        guard !problems.isEmpty else { return nil }
        return CLIError(
            "\(problems.count) mapping expression\(problems.count == 1 ? " is" : "s are") not valid SQL; fix \(problems.count == 1 ? "it" : "them") before migrating:"
                + problems.map { "\n  \($0)" }.joined()
        )
    }
}
