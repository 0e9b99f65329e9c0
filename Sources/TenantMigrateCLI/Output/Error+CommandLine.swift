import MigrationEngine
import TenantMigrator

/// The library's errors in the command line's words: where the library names its Swift API
/// (`allowDestructive`, `lockTimeout`, `rollback(tenant:to:)`, …), the command line names its
/// flags and commands (`--allow-destructive`, `--lock-timeout`, `rollback --tenant …`).
enum CommandLineMessage {
    /// `error` reworded as a ``CLIError``, or `error` itself when it has nothing to reword.
    static func translating(_ error: any Error) -> any Error {
        text(for: error).map(CLIError.init) ?? error
    }

    /// `error` as the command line prints it.
    static func describe(_ error: any Error) -> String {
        text(for: error) ?? "\(error)"
    }

    private static func text(for error: any Error) -> String? {
        switch error {
        case let error as TenantMigratorError: return text(for: error)
        case let error as TenantMigrationError: return text(for: error)
        case let error as UnconsentedLoss: return error.summary + "; re-run with --allow-destructive to accept the loss"
        default: return nil
        }
    }

    private static func text(for error: TenantMigratorError) -> String? {
        switch error {
        case let .schemaExists(schema, tenant):
            return error.summary + "; register it with `tenant adopt \(tenant) --schema \(schema)`, or drop it"
        case .unknownTenant, .schemaBelongsToTenant:
            return error.summary + " (see `tenant list`)"
        case .dropNotConfirmed:
            return error.summary + "; confirm with --yes-drop-data"
        case .modelChanged:
            return error.summary + ". Restore the released file, or accept the change if it is cosmetic (--accept-model-change)"
        default:
            return nil
        }
    }

    private static func text(for error: TenantMigrationError) -> String? {
        let tenant = error.tenant, target = error.toVersion
        switch error.reason {
        case .stepFailed:
            return error.summary + (error.underlying.map { ". Cause: " + describe($0) } ?? "")
        case .lockTimeout:
            return error.summary + ". Retry when the database is quieter, or raise --lock-timeout / --max-attempts"
        case .destructiveChangesRefused:
            return error.summary + "\nRe-run with --allow-destructive to accept the loss."
        case .wrongDirection(.up):
            return error.summary + ". To go back, use `rollback --tenant \(tenant) --to \(target)`"
        case .wrongDirection(.down):
            return error.summary + ". To go forward, use `migrate --tenant \(tenant) --to \(target)`"
        case .interrupted, .wrongDirection:
            return nil
        }
    }
}
