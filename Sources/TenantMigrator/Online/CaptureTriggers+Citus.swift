import LibPQ
import MigrationEngine

extension Connection {
    /// On Citus, the statement that lets the rest of the current transaction create, alter and
    /// drop triggers on distributed tables (`SET LOCAL citus.enable_unsafe_triggers = on`: without
    /// it "triggers are not supported on distributed tables", XX000); none elsewhere. The change
    /// capture's triggers then fire on the tenant's worker (docs/Citus.md).
    func allowingTriggers() throws -> [Statement] {
        try capabilities.requiresTriggersToBeAllowed ? [Statement("SET LOCAL citus.enable_unsafe_triggers = on")] : []
    }
}
