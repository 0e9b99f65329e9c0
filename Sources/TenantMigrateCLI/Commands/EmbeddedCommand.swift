import ArgumentParser

/// `tenant-migrate embedded …`: the embedded PostgreSQL used when no database is configured.
struct EmbeddedCommand<Runner: TenantMigrateRunner>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "embedded",
            abstract: "Start, stop or locate the embedded PostgreSQL server (.tenant-migrate/postgres).",
            subcommands: [Start.self, Stop.self]
        )
    }

    struct Start: RunnerCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "start", abstract: "Start the embedded server and print its connection string.")
        }
        @Flag(name: .shortAndLong, help: "Log what the server does.") var verbose = false

        func perform() async throws {
            Console.line(try EmbeddedServer<Runner>(verbose: verbose).resolver.embedded.start().connectionString())
        }
    }

    struct Stop: RunnerCommand {
        static var configuration: CommandConfiguration { CommandConfiguration(commandName: "stop", abstract: "Stop the embedded server.") }
        @Flag(name: .shortAndLong, help: "Log what the server does.") var verbose = false

        func perform() async throws {
            try EmbeddedServer<Runner>(verbose: verbose).resolver.embedded.stop()
            Console.line("stopped the embedded PostgreSQL in \(DatabaseResolver.embeddedDirectory.relativePath)")
        }
    }
}

/// The embedded server as `embedded start` and `stop` reach it: where the runner's logs go.
private struct EmbeddedServer<Runner: TenantMigrateRunner> {
    let verbose: Bool

    var resolver: DatabaseResolver {
        let configuration = Runner.runnerConfiguration
        return DatabaseResolver(
            allowsEmbeddedServer: true, console: Runner.console,
            logger: Console.logger(label: Runner._commandName, verbose: verbose, destination: configuration.logging)
        )
    }
}
