import ArgumentParser
import Foundation
import LibPQ
import PostgresTestSupport
import RecipesPolicies
import TenantMigrateCLI
import TenantMigrator
import Testing

private let repositoryRoot = PackagePaths.root
private let migrations = repositoryRoot.appendingPathComponent("Migrations")

/// An app's own command, with the runner as its `migrate` subcommand.
struct Host: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "host", subcommands: [Migrate.self])
}

/// The runner as the host has it: its bundled models, its policies, its own `seed` command, no
/// embedded server, and its logs through the host's swift-log handler. The type's name gives the
/// command's: `host migrate …`.
struct Migrate: TenantMigrateRunner {
    static let runnerConfiguration = TenantMigrateConfiguration(
        migrationsDirectory: migrations, policies: RecipesPolicies.registry, additionalSubcommands: [Seed.self], logging: .loggingSystem
    )
}

/// A command of the app's own, beside the runner's: the same options, the same migrator.
struct Seed: AsyncParsableCommand {
    @OptionGroup var options: RunnerOptions<Migrate>
    @Argument var tenant: String

    func run() async throws {
        try await options.withMigrator { migrator in
            try await migrator.createTenant(tenant)
            TextTable.print(["TENANT", "VERSION"], try await migrator.tenants().map { [$0.name.rawValue, $0.version] })
        }
    }
}

/// Runs `host <arguments>` in-process as the host app would, after the host bootstrapped its own
/// logging. Nothing is configured at run time: the runner's configuration is its type's.
private func host(_ arguments: [String]) async throws {
    HostLogging.bootstrap()
    var command = try Host.parseAsRoot(arguments)
    if var async = command as? AsyncParsableCommand {
        try await async.run()
    } else {
        try command.run()
    }
}

/// The error `host <arguments>` ends with, as the host prints it.
private func hostError(_ arguments: [String]) async -> String? {
    do {
        try await host(arguments)
        return nil
    } catch {
        return Host.message(for: error)
    }
}

@Suite("The runner inside an app")
struct RunnerInsideAppTests {
    /// `host migrate …` after the host bootstrapped logging: no second bootstrap, no crash, and
    /// the models come from the configured directory (no --migrations).
    @Test func runsAsAHostSubcommandAfterTheHostBootstrappedLogging() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let database = ["--database-url", conninfo]
            try await host(["migrate", "tenant", "create", "acme", "globex", "--version", "v1", "--verbose"] + database)
            try await host(["migrate", "status"] + database)
            try await host(["migrate", "plan", "--tenant", "acme"] + database)
            try await host(["migrate", "migrate", "--all"] + database)
            let connection = try Connection(conninfo)
            #expect(try version(of: "acme", connection) == "v3")
            #expect(try version(of: "globex", connection) == "v3")
            try await host(["migrate", "status", "--json"] + database)

            // The app's own command, beside the runner's.
            try await host(["migrate", "seed", "initech"] + database)
            #expect(try version(of: "initech", connection) == "v3")
        }
    }

    /// Each command's migrator is shut down when the command ends, in success and in failure: a
    /// host app that runs commands in-process keeps no sessions of theirs open (a session leaked by
    /// a command, a cache or a retained migrator stays, and fails this).
    @Test func commandsCloseTheirSessionsWhenTheyEnd() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            // The commands' sessions carry the runner's name as their application_name.
            let database = ["--database-url", conninfo + " application_name=host-runner-sessions"]
            let observer = try Connection(conninfo)
            // A closed session leaves pg_stat_activity when its backend has exited, a moment later;
            // one left open stays for the 30 s the poll allows.
            let sessions = {
                try await waitUntil {
                    try observer.execute(
                        "SELECT count(*)::int FROM pg_catalog.pg_stat_activity WHERE application_name = 'host-runner-sessions'"
                    ).first?.decode(Int.self, at: 0) == 0
                } ? 0 : 1
            }
            try await host(["migrate", "tenant", "create", "acme", "globex", "--version", "v1"] + database)
            #expect(try await sessions() == 0)
            try await host(["migrate", "migrate", "--all", "--jobs", "2"] + database)
            #expect(try await sessions() == 0)
            for command in [["status"], ["tenant", "list"], ["tenant", "pin", "acme"], ["tenant", "unpin", "acme"], ["archive", "list"],
                            ["rollback", "--tenant", "acme", "--to", "v2"], ["online", "cleanup"],
                            // The app's own command, through RunnerOptions.withMigrator.
                            ["seed", "initech"]] {
                try await host(["migrate"] + command + database)
                #expect(try await sessions() == 0, "after \(command)")
            }
            // A command that fails closes its sessions too.
            #expect(await hostError(["migrate", "migrate", "--tenant", "nobody"] + database) != nil)
            #expect(try await sessions() == 0)
        }
    }

    @Test func helpShowsTheHostsNames() async throws {
        let help = Host.helpMessage(for: Migrate.self, columns: 200)
        #expect(help.contains("USAGE: host migrate <subcommand>"), "\(help)")
        #expect(!help.contains("tenant-migrate"), "\(help)")
        // Neither the Recipes demo nor the embedded server: those are tenant-migrate's own.
        #expect(!help.contains("demo") && !help.contains("embedded"), "\(help)")
        #expect(help.contains(migrations.path), "the configured models directory: \(help)")

        let migrate = try #require(Migrate.configuration.subcommands.first { $0.configuration.commandName == "migrate" })
        let text = Host.helpMessage(for: migrate, columns: 200)
        #expect(text.contains("USAGE: host migrate migrate"), "\(text)")
        #expect(!text.contains("tenant-migrate") && !text.contains("embedded server"), "\(text)")
    }

    /// With no database configured, a runner that does not allow the embedded server fails with
    /// a message naming every way to configure one, and starts nothing.
    @Test(.enabled(
        if: (["DATABASE_URL"] + ["PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE", "PGSERVICEFILE"])
            .allSatisfy { (ProcessInfo.processInfo.environment[$0] ?? "").isEmpty },
        "no database may be configured in the environment"
    ))
    func withoutADatabaseACustomRunnerFailsAndStartsNothing() async {
        let embedded = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".tenant-migrate")
        let existedBefore = FileManager.default.fileExists(atPath: embedded.path)
        for arguments in [["migrate", "status"], ["migrate", "plan", "--from", "v1", "--to", "v2"], ["migrate", "migrate", "--all"]] {
            let message = await hostError(arguments) ?? "no error"
            #expect(message.contains("--database-url") && message.contains("DATABASE_URL") && message.contains("PGHOST"), "\(message)")
        }
        if !existedBefore {
            #expect(!FileManager.default.fileExists(atPath: embedded.path), "no embedded server directory")
        }
    }

    /// The library's errors speak of its Swift API; the command line's, for the same failures, of
    /// its flags and commands.
    @Test func libraryErrorsNameTheAPIAndTheCommandLineNamesItsFlags() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            var migrator = try TenantMigrator(
                connectionString: conninfo, familyDirectory: migrations.appendingPathComponent("Recipes"), policies: RecipesPolicies.registry
            )
            try await migrator.createTenant("acme", version: "v2")
            let database = ["--database-url", conninfo]

            func libraryText(_ body: () async throws -> Void) async -> String {
                do {
                    try await body()
                    return "no error"
                } catch {
                    return "\(error)"
                }
            }
            func expectLibrary(_ text: String, names api: String) {
                #expect(text.contains(api), "\(text)")
                #expect(!text.contains("--"), "no command-line flag in the library's text: \(text)")
            }

            // Dropping needs confirmation.
            expectLibrary(await libraryText { try await migrator.dropTenant("acme", confirmed: false) }, names: "confirmed: true")
            #expect(await hostError(["migrate", "tenant", "drop", "acme"] + database)?.contains("confirm with --yes-drop-data") == true)

            // migrate only moves forward.
            expectLibrary(await libraryText { _ = try await migrator.migrate(tenant: "acme", to: "v1") }, names: "rollback(tenant: \"acme\", to: \"v1\")")
            #expect(await hostError(["migrate", "migrate", "--tenant", "acme", "--to", "v1"] + database)?.contains("`rollback --tenant acme --to v1`") == true)

            // A rollback that drops data without the archive needs consent.
            migrator.archives = false
            expectLibrary(await libraryText { _ = try await migrator.rollback(tenant: "acme", to: "v1") }, names: "allowDestructive: true")
            let refused = await hostError(["migrate", "rollback", "--tenant", "acme", "--to", "v1", "--no-archive"] + database)
            #expect(refused?.contains("Re-run with --allow-destructive") == true && refused?.contains("allowDestructive") == false, "\(refused ?? "")")
            migrator.archives = true

            // An unknown tenant.
            expectLibrary(await libraryText { _ = try await migrator.plan(tenant: "ghost") }, names: "no tenant named ghost")
            #expect(await hostError(["migrate", "plan", "--tenant", "ghost"] + database)?.contains("(see `tenant list`)") == true)

            // Every attempt times out on the tenant's lock, which another session holds.
            let holder = try Connection(conninfo)
            try holder.execute("BEGIN")
            try holder.execute("SELECT 1 FROM tenant_migrator.tenants WHERE name = 'acme' FOR UPDATE")
            migrator.lockTimeout = .milliseconds(100)
            migrator.maxAttempts = 1
            expectLibrary(await libraryText { _ = try await migrator.migrate(tenant: "acme") }, names: "raise `lockTimeout` / `maxAttempts`")
            let timedOut = await hostError(["migrate", "migrate", "--tenant", "acme", "--lock-timeout", "100", "--max-attempts", "1"] + database)
            #expect(timedOut?.contains("55P03") == true && timedOut?.contains("raise --lock-timeout / --max-attempts") == true, "\(timedOut ?? "")")
            try holder.execute("ROLLBACK")
            #expect(try version(of: "acme", holder) == "v2")
        }
    }

    /// The real `tenant-migrate` finds its models through TENANT_MIGRATE_MIGRATIONS, after
    /// --migrations and before ./Migrations, and keeps its own demo and embedded commands.
    @Test func theExecutableHonoursTheMigrationsVariable() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let empty = FileManager.default.temporaryDirectory.appendingPathComponent("no-models-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: empty) }

            let found = try await TenantMigrateExecutable.run(
                ["status", "--database-url", conninfo], environment: ["TENANT_MIGRATE_MIGRATIONS": migrations.path]
            )
            #expect(found.status == 0 && found.stdout.contains("family Recipes"), "\(found.stderr)")
            // The variable wins over ./Migrations (the working directory's, which holds Recipes).
            let none = try await TenantMigrateExecutable.run(
                ["status", "--database-url", conninfo], environment: ["TENANT_MIGRATE_MIGRATIONS": empty.path]
            )
            #expect(none.status != 0 && none.stderr.contains("no model family found in \(empty.path)"), "\(none.stderr)")
            // --migrations wins over the variable.
            let explicit = try await TenantMigrateExecutable.run(
                ["status", "--database-url", conninfo, "--migrations", migrations.path], environment: ["TENANT_MIGRATE_MIGRATIONS": empty.path]
            )
            #expect(explicit.status == 0, "\(explicit.stderr)")

            let help = try await TenantMigrateExecutable.run(["--help"])
            #expect(help.stdout.contains("USAGE: tenant-migrate") && help.stdout.contains("demo") && help.stdout.contains("embedded"), "\(help.stdout)")
        }
    }
}
