import ArgumentParser
import TenantMigrator

/// `tenant-migrate online`: what online migrations leave when they stop before their cutover.
struct OnlineCommand<Runner: TenantMigrateRunner>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "online",
            abstract: "Clean up after online migrations that stopped before their cutover (docs/Online.md).",
            subcommands: [Cleanup.self]
        )
    }

    struct Cleanup: ReportingCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "cleanup",
                abstract: "Remove the change capture and private schemas of online migrations that were killed or lost their connection.",
                discussion: """
                    A stopped online migration leaves triggers on the tenant's tables (inert: they log nothing once \
                    its runner is gone, but each written row still calls them) and a private schema. Running the \
                    migration again removes them and starts over; so does any offline migration of the tenant. \
                    This command removes them without migrating. A tenant whose online migration is running is left alone.
                    """
            )
        }
        @OptionGroup var options: RunnerOptions<Runner>
        @OptionGroup var filter: TenantFilterOptions
        @OptionGroup var output: OutputOptions<OnlineCleanupReport>

        func report() async throws -> OnlineCleanupReport {
            OnlineCleanupReport(results: try await options.withMigrator { migrator, _ in try await migrator.cleanUpOnlineMigrations(tenant: try await filter.known(in: migrator)) })
        }
    }
}

/// What `online cleanup` prints: each tenant checked (the JSON is their array).
struct OnlineCleanupReport: CommandReport {
    let results: [OnlineCleanupResult]

    func encode(to encoder: any Encoder) throws {
        try results.encode(to: encoder)
    }

    func printText() {
        for result in results where result.outcome != .clean {
            Console.line("\(result.tenant): \(result.outcome == .removed ? "removed what a stopped online migration left" : "an online migration is running; left alone")")
        }
        let removed = results.count { $0.outcome == .removed }
        Console.line("\(results.count) tenant\(results.count == 1 ? "" : "s") checked, \(removed) cleaned up")
    }
}
