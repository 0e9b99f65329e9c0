import EntityModel
import LibPQ
import MigrationEngine

extension TenantMigrator {
    /// Checks the filters and value expressions of the mapping models against PostgreSQL (see
    /// ``MappingModel/checkExpressions(in:on:)``): every mapping model, or with `source` and
    /// `destination` only those of the steps between them. Writes nothing: each check runs in a
    /// transaction that is rolled back, and the catalog is not installed.
    ///
    /// - Returns: every problem, with the file and line of the expression, in file order.
    public func checkMappingExpressions(from source: String? = nil, to destination: String? = nil) async throws -> [MappingExpressionProblem] {
        var pairs: [VersionPair]?
        if let source, let destination {
            pairs = try TenantMigratorError.reporting { try self.family.path(from: source, to: destination).pairs }
        }
        let models = mappings
            .filter { model in pairs?.contains { ($0.source.name, $0.destination.name) == (model.sourceVersion, model.destinationVersion) } ?? true }
            .sorted { $0.file < $1.file }
        guard !models.isEmpty else { return [] }
        let family = self.family
        return try await withPlainConnection { connection in
            try models.flatMap { try $0.checkExpressions(in: family, on: connection) }
        }
    }
}
