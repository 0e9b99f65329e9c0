import EntityModel
import LibPQ
import MigrationEngine

extension TenantMigratorError {
    /// `error` as the facade reports it: errors of the lower layers (libpq, the planner) become
    /// the matching case; anything else (this type, ``TenantMigrationError``, an app's own error
    /// thrown from a `withConnection` body) is left as it is.
    static func fromLowerLayers(_ error: any Error) -> any Error {
        switch error {
        case let error as PQError where error.kind == .connection:
            return TenantMigratorError.databaseUnavailable(error.description)
        case let error as PQError:
            return TenantMigratorError.database(error.description, sqlState: error.sqlState?.rawValue)
        case let error as PlanningError:
            return TenantMigratorError.cannotPlan(error.description)
        case let error as UnknownVersion:
            return TenantMigratorError.unknownVersion(error.version, family: error.family, known: error.known)
        default:
            return error
        }
    }

    /// Runs `body`, reporting lower-layer errors as ``TenantMigratorError`` (see ``fromLowerLayers(_:)``).
    static func reporting<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw fromLowerLayers(error)
        }
    }

    /// The synchronous ``reporting(_:)``.
    static func reporting<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw fromLowerLayers(error)
        }
    }
}
