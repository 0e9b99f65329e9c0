import TenantMigrator

/// An operator's "move this tenant" button, answering every way it can fail by the library's
/// error types.
func migrateForOperator(_ name: String, to version: String, migrator: TenantMigrator) async -> String {
    do {
        let result = try await migrator.migrate(tenant: name, to: version)
        return "\(name): \(result.fromVersion) → \(result.toVersion), \(result.outcome.rawValue)"
    } catch let error as TenantMigrationError {
        switch error.reason {
        case .destructiveChangesRefused(let changes):
            return "\(name): the plan drops data (\(changes.count) changes); ask again with allowDestructive"
        case .wrongDirection:
            return "\(name) is past \(version): roll it back instead"
        case .lockTimeout(let lockTimeout):
            return "\(name) is busy: no lock within \(lockTimeout) in \(error.attempts) attempts; try again later"
        case .stepFailed:
            // Rolled back and recorded in the catalog; the SQLSTATE tells a constraint from the rest.
            return "\(name): \(error.failedStep ?? "a step") failed [\(error.sqlState?.rawValue ?? "no SQLSTATE")]"
        case .interrupted:
            return "\(name): stopped before it changed anything"
        case .unsupportedByServer(let changes):
            return "\(name): Citus cannot run this plan (\(changes.joined(separator: "; "))); nothing was changed"
        }
    } catch let error as TenantMigratorError {
        switch error {
        case .unknownTenant, .invalidTenantName: return "no tenant \(name)"
        case .unknownVersion(_, _, let known): return "no version \(version); there are \(known.joined(separator: ", "))"
        case .databaseUnavailable(let message): return "the database is unreachable: \(message)"
        case .database(let message, let sqlState) where sqlState?.hasPrefix("42") == true:
            // class 42: 42501 insufficient privilege, …
            return "refused by the server: \(name)'s migration needs a privilege or an object the migrator's role lacks (\(message))"
        default: return error.description
        }
    } catch {
        return "\(error)"
    }
}
