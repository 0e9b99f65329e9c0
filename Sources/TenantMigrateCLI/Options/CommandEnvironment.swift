import Foundation
import MigrationEngine

/// What the process's entry point (``TenantMigrateCommand/main(_:bootstrapLogging:)``) or the host
/// app (``TenantMigrateCommand/configure(_:bootstrapLogging:)``) provides to every command, set
/// before the arguments are parsed.
enum CommandEnvironment {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var storedConfiguration = TenantMigrateConfiguration(commandName: "tenant-migrate")
    nonisolated(unsafe) private static var storedBootstrapsLogging = false

    /// The runner's configuration: `tenant-migrate` with no embedded server until configured.
    static var configuration: TenantMigrateConfiguration {
        get { lock.withLock { storedConfiguration } }
        set { lock.withLock { storedConfiguration = newValue } }
    }

    /// Whether the commands bootstrap swift-log (once per process). Only when the runner owns the
    /// process, or the host says so: swift-log cannot tell whether a host already did.
    static var bootstrapsLogging: Bool {
        get { lock.withLock { storedBootstrapsLogging } }
        set { lock.withLock { storedBootstrapsLogging = newValue } }
    }

    static var policies: PolicyRegistry { configuration.policies }

    /// The name notes on stderr start with.
    static var commandName: String { configuration.commandName ?? "tenant-migrate" }
}
