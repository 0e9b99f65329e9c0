import ArgumentParser
import TenantMigrator

extension TenantCommand {
    /// `tenant pin NAME [--version V]`: keep a tenant where it is (or move it, then keep it there).
    struct Pin: RunnerCommand {
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

        func perform() async throws {
            _ = try TenantName(name)
            let result = try await options.withMigrator { migrator, _ in try await migrator.pin(tenant: name, at: version, reason: reason, allowDestructive: allowDestructive) }
            if result.outcome == .migrated { result.printLine() }
            Console.line("pinned tenant \(name) at \(result.toVersion)")
        }
    }

    /// `tenant unpin NAME`: let fleet runs and migrateIfNeeded move the tenant again.
    struct Unpin: RunnerCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "unpin",
                abstract: "Release a tenant's pin: the next `migrate --all` or migrateIfNeeded moves it like any other."
            )
        }

        @OptionGroup var options: RunnerOptions<Runner>
        @Argument(help: "The tenant's name.") var name: String

        func perform() async throws {
            _ = try TenantName(name)
            let wasPinned = try await options.withMigrator { migrator, _ in try await migrator.unpin(tenant: name) }
            Console.line(wasPinned ? "unpinned tenant \(name)" : "tenant \(name) was not pinned")
        }
    }
}

extension TenantRecord {
    /// The pin as `status` and `tenant list` show it: `v1 (rolled back)`, or "" when unpinned.
    var pinDescription: String {
        guard let pinnedVersion else { return "" }
        return pinnedVersion + (pinnedReason.map { " (\($0))" } ?? "")
    }
}
