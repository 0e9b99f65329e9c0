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
        let steps = source.flatMap { source in destination.map { stepsBetween(source, $0) } }
        let models = mappings.compactMap { $0 as? MappingModel }
            .filter { model in steps?.contains { $0 == (model.sourceVersion, model.destinationVersion) } ?? true }
            .sorted { $0.file < $1.file }
        guard !models.isEmpty else { return [] }
        let family = self.family
        return try await withPlainConnection { connection in
            try models.flatMap { try $0.checkExpressions(in: family, on: connection) }
        }
    }

    /// The adjacent pairs a migration from `source` to `destination` walks through, in order.
    private func stepsBetween(_ source: String, _ destination: String) -> [(String, String)] {
        let names = family.versionNames
        guard let from = names.firstIndex(of: source), let to = names.firstIndex(of: destination), from != to else { return [] }
        let path = from < to ? Array(names[from...to]) : Array(names[to...from].reversed())
        return zip(path, path.dropFirst()).map { ($0, $1) }
    }
}
