import ArgumentParser
import TenantMigrator

extension TenantCommand {
    /// `tenant pin NAME [--version V]`: keep a tenant where it is (or move it, then keep it there).
    struct Pin: ReportingCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "pin",
                abstract: "Pin a tenant at a version, so that fleet runs and migrateIfNeeded leave it there.",
                discussion: """
                    Without --version the tenant is pinned where it is. With another version it is migrated \
                    there first (up or down, in the same transaction as the pin); a plan that loses data needs \
                    --allow-destructive. `migrate --all`, --match, --limit, several --tenant and the app's \
                    migrateIfNeeded then report it as pinned and leave it alone. `migrate --tenant NAME` (alone) \
                    moves it and clears the pin; `tenant unpin NAME` releases it. A rollback pins by itself.
                    """
            )
        }

        @OptionGroup var options: RunnerOptions<Runner>
        @Argument(help: "The tenant's name.") var name: String
        @Option(help: ArgumentHelp("The version to pin it at. Default: the one it is at.", valueName: "v")) var version: String?
        @Option(help: ArgumentHelp("Why, shown by `status` and `tenant list`.", valueName: "text")) var reason: String?
        @Flag(name: .long, help: "Reaching --version may lose data for good (declared losses, or anything with --no-archive).") var allowDestructive = false
        @OptionGroup var output: OutputOptions<PinReport>

        func report() async throws -> PinReport {
            _ = try TenantName(name)
            return PinReport(result: try await options.withMigrator { migrator, _ in
                try await migrator.pin(tenant: name, at: version, reason: reason, allowDestructive: allowDestructive)
            })
        }
    }

    /// `tenant unpin NAME`: let fleet runs and migrateIfNeeded move the tenant again.
    struct Unpin: ReportingCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "unpin",
                abstract: "Release a tenant's pin: the next `migrate --all` or migrateIfNeeded moves it like any other."
            )
        }

        @OptionGroup var options: RunnerOptions<Runner>
        @Argument(help: "The tenant's name.") var name: String
        @OptionGroup var output: OutputOptions<MessageReport<[String: Bool]>>

        func report() async throws -> MessageReport<[String: Bool]> {
            _ = try TenantName(name)
            let wasPinned = try await options.withMigrator { migrator, _ in try await migrator.unpin(tenant: name) }
            return MessageReport(message: wasPinned ? "unpinned tenant \(name)" : "tenant \(name) was not pinned", details: ["wasPinned": wasPinned])
        }
    }
}

/// What `tenant pin` prints: the migration to the pinned version, if there was one, and the pin
/// (JSON: the migration's result).
struct PinReport: CommandReport {
    let result: TenantMigrationResult

    func encode(to encoder: any Encoder) throws { try result.encode(to: encoder) }

    func printText() {
        if result.outcome == .migrated { result.printLine() }
        Console.line("pinned tenant \(result.tenant) at \(result.toVersion)")
    }
}

extension TenantRecord {
    /// The pin as `status` and `tenant list` show it: `v1 (rolled back)`, or "" when unpinned.
    var pinDescription: String {
        guard let pinnedVersion else { return "" }
        return pinnedVersion + (pinnedReason.map { " (\($0))" } ?? "")
    }
}
