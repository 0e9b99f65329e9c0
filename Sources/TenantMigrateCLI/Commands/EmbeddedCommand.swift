import ArgumentParser

/// `tenant-migrate embedded …`: the embedded PostgreSQL used when no database is configured.
struct EmbeddedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "embedded",
        abstract: "Start, stop or locate the embedded PostgreSQL server (.tenant-migrate/postgres).",
        subcommands: [Start.self, Stop.self]
    )

    struct Start: RunnerCommand {
        static let configuration = CommandConfiguration(abstract: "Start the embedded server and print its connection string and version.")
        func perform() async throws {
            let server = try DatabaseResolver.embedded.start()
            print(server.connectionString())
        }
    }

    struct Stop: RunnerCommand {
        static let configuration = CommandConfiguration(abstract: "Stop the embedded server.")
        func perform() async throws {
            try DatabaseResolver.embedded.stop()
            print("stopped the embedded PostgreSQL in \(DatabaseResolver.embeddedDirectory.relativePath)")
        }
    }
}
