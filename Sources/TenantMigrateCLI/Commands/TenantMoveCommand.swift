import ArgumentParser
import TenantMigrator

/// `migrate` and `rollback`: one move of tenants, forward or back, checked and run the same way
/// (``TenantMove``).
protocol TenantMoveCommand: ReportingCommand where Report == MoveReport<NamedMoveReport> {
    /// `.migrate` or `.rollback`.
    static var operation: MigrationRequest.Operation { get }
    var options: RunnerOptions<Runner> { get }
    /// The tenants named with --tenant.
    var tenant: [String] { get }
    /// The version to move to; nil for the operation's default.
    var target: String? { get }
    var migration: MigrationOptions { get }
    var fleet: FleetOptions { get }
}

extension TenantMoveCommand {
    func validate() throws {
        try TenantMove.validate(tenant, fleet: fleet, operation: Self.operation)
    }

    func report() async throws -> MoveReport<NamedMoveReport> {
        try await TenantMove(operation: Self.operation, target: target, tenants: tenant, migration: migration, fleet: fleet)
            .run(options, for: output.chosen)
    }
}
