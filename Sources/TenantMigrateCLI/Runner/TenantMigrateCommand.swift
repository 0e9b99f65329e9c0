import ArgumentParser
import Foundation
import LibPQ
import Logging
import MigrationEngine

/// The runner of the previous release, configured at run time: kept for one release so that
/// existing runners and host apps build. New code declares a ``TenantMigrateRunner`` type, whose
/// configuration is a constant of the type.
///
/// It keeps its configuration in one process-wide, locked slot, set by ``main(_:bootstrapLogging:)``,
/// ``configure(_:bootstrapLogging:)`` or ``use(policies:)`` before the arguments are parsed: the
/// very design ``TenantMigrateRunner`` replaces.
@available(*, deprecated, message: "declare a runner type conforming to TenantMigrateRunner (docs/CustomRunner.md)")
public struct TenantMigrateCommand: TenantMigrateRunner {
    public init() {}

    /// The configuration last installed; `tenant-migrate` with no embedded server until then.
    public static var runnerConfiguration: TenantMigrateConfiguration { slot.value }

    /// Runs the command line as the process's root command, with `configuration`.
    ///
    /// - Parameter bootstrapLogging: true: swift-log is bootstrapped to the runner's stderr lines,
    ///   as before, for the runner's own commands that log through `LoggingSystem`; false: the
    ///   process did, and the runner logs through its handler.
    public static func main(_ configuration: TenantMigrateConfiguration, bootstrapLogging: Bool = true) async {
        var configuration = configuration
        if configuration.commandName == nil {
            configuration.commandName = CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "tenant-migrate"
        }
        if bootstrapLogging {
            LoggingSystem.bootstrap { LineLogHandler(label: $0, showsTenantFailures: false) }
        }
        configuration.logging = .loggingSystem
        slot.withLock { $0 = configuration }
        await main()
    }

    /// Runs the command line with the application's migration policies registered.
    public static func main(policies: PolicyRegistry) async {
        await main(TenantMigrateConfiguration(policies: policies))
    }

    /// Configures the runner for a host command that lists `TenantMigrateCommand` among its
    /// subcommands; call it before the host parses its arguments.
    ///
    /// - Parameter bootstrapLogging: false (the default): the runner's logs go to the host's
    ///   swift-log handler; true: to stderr as whole lines.
    public static func configure(_ configuration: TenantMigrateConfiguration, bootstrapLogging: Bool = false) {
        var configuration = configuration
        if configuration.commandName == nil { configuration.commandName = "migrate" }
        configuration.logging = bootstrapLogging ? .standardError : .loggingSystem
        slot.withLock { $0 = configuration }
    }

    /// Registers the policies (and stage hooks) every command uses; the rest of the configuration is kept.
    public static func use(policies: PolicyRegistry) {
        var configuration = slot.value
        configuration.policies = policies
        slot.withLock { $0 = configuration }
    }

    /// The process-wide configuration of the deprecated runner.
    private static let slot = Locked(TenantMigrateConfiguration(commandName: "tenant-migrate"))
}

/// The options of the previous release's runner; a runner's own commands now take
/// `@OptionGroup var options: RunnerOptions<MyRunner>`.
@available(*, deprecated, message: "use RunnerOptions<Runner>, with your TenantMigrateRunner type")
public typealias GlobalOptions = RunnerOptions<TenantMigrateCommand>
