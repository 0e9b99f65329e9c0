import ArgumentParser
import EntityModel
import LibPQ
import MigrationEngine
import TenantMigrator

/// The library's errors in the command line's words: where the library names its Swift API
/// (`allowDestructive`, `lockTimeout`, `rollback(tenant:to:)`, …), the command line names its
/// flags and commands (`--allow-destructive`, `--lock-timeout`, `rollback --tenant …`); and a
/// trial run's failure is told in the conditional (`dry run of v1 → v3 would fail`). Either way
/// the message is made safe for a terminal (``TerminalText``): a name in it may come from elsewhere.
enum CommandLineMessage {
    /// `error` reworded as a ``CLIError``, or `error` itself when it has nothing to reword and no
    /// control character to escape.
    static func translating(_ error: any Error, mode: MigrationRunMode = .apply) -> any Error {
        if let text = text(for: error, mode: mode) { return CLIError(TerminalText.lines(text)) }
        return escapedText(of: error).map(CLIError.init) ?? error
    }

    /// The text of `error` with its control characters escaped, when it has any; each of a model
    /// file's diagnostics stays on its one line. Nil for ArgumentParser's exits, which carry a status.
    private static func escapedText(of error: any Error) -> String? {
        guard !(error is ExitCode), !(error is CleanExit) else { return nil }
        let plain = "\(error)"
        let escaped = (error as? ModelLoadError).map { $0.diagnostics.map { TerminalText.line($0.description) }.joined(separator: "\n") }
            ?? TerminalText.lines(plain)
        return escaped == plain ? nil : escaped
    }

    /// `error` as the command line prints it.
    static func describe(_ error: any Error, mode: MigrationRunMode = .apply) -> String {
        text(for: error, mode: mode) ?? "\(error)"
    }

    /// A tenant's error as a report line carries it, a string the library wrote
    /// (``TenantMigrationError/description``, whose advice names the Swift API), with that advice
    /// in the command line's words, as ``translating(_:mode:)`` gives it for the error itself:
    /// `migrate(tenant: "acme", to: "v2")` becomes `migrate --tenant acme --to v2`, and
    /// `allowDestructive: true`, `lockTimeout` and `maxAttempts` their flags.
    static func inCommandLineWords(_ libraryText: String) -> String {
        libraryText
            .replacing(/`(migrate|rollback)\(tenant: "([^"`]*)", to: "([^"`]*)"\)`/) { "`\($0.1) --tenant \($0.2) --to \($0.3)`" }
            .replacingOccurrences(of: "Pass `allowDestructive: true` to accept the loss.", with: "Re-run with --allow-destructive to accept the loss.")
            .replacingOccurrences(of: "raise `lockTimeout` / `maxAttempts`", with: "raise --lock-timeout / --max-attempts")
    }

    /// The SQLSTATE behind `error`, when there is one.
    static func sqlState(of error: any Error) -> String? { SQLState.of(error)?.rawValue }

    private static func text(for error: any Error, mode: MigrationRunMode) -> String? {
        switch error {
        case let error as TenantMigratorError: return text(for: error)
        case let error as TenantMigrationError: return text(for: error, mode: mode)
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
        case let .untrustedCatalog(schema, problems):
            // Every object owned by the schema's one owner, and nothing else amiss: most likely the
            // command connected as another role than the migrator (the app's, one's own login), so
            // the list of each object and its owner says less than the owner's name.
            let prefix = "the schema is owned by "
            guard let owner = problems.first.flatMap({ $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : nil }),
                  problems.allSatisfy({ $0.hasSuffix(" is owned by \(owner)") }) else { return nil }
            return "the tenant catalog \(schema) and everything in it belong to role \(owner), not to the role this command "
                + "connected as (42501), so nothing was read from it or written to it. If \(owner) is the migrator role, connect "
                + "as \(owner); if it is not, have a superuser inspect the schema, or name another catalog with --catalog"
        default:
            return nil
        }
    }

    private static func text(for error: TenantMigrationError, mode: MigrationRunMode) -> String? {
        let tenant = error.tenant, target = error.toVersion
        switch error.reason {
        case .stepFailed:
            // (A trial's own words, where the error does not know them yet.)
            var error = error
            if mode.isTrial { error.mode = mode }
            return error.summary + (error.underlying.map { ". Cause: " + describe($0) } ?? "")
        case .lockTimeout:
            return error.summary + ". Retry when the database is quieter, or raise --lock-timeout / --max-attempts"
        case .destructiveChangesRefused:
            return error.summary + "\nRe-run with --allow-destructive to accept the loss."
        case .wrongDirection(.up):
            return error.summary + ". To go back, use `rollback --tenant \(tenant) --to \(target)`"
        case .wrongDirection(.down):
            return error.summary + ". To go forward, use `migrate --tenant \(tenant) --to \(target)`"
        case .interrupted, .wrongDirection, .unsupportedByServer:
            return nil
        }
    }
}
