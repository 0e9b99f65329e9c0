import MigrationEngine
import TenantMigrator
import Testing

/// Runs `body`, which must fail with a ``TenantMigrationError``, and returns that error; records an
/// issue naming `expectation` when `body` succeeds or throws something else.
public func migrationFailure(
    _ expectation: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> TenantMigrationError? {
    do {
        try await body()
        Issue.record("\(expectation), but it succeeded", sourceLocation: sourceLocation)
    } catch let error as TenantMigrationError {
        return error
    } catch {
        Issue.record("\(expectation), but it failed otherwise: \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

extension TenantMigrationError {
    /// The changes a refusal for want of consent names (nil for any other failure).
    public var refusedChanges: [DestructiveChange]? {
        if case let .destructiveChangesRefused(changes) = reason { return changes }
        return nil
    }
}
