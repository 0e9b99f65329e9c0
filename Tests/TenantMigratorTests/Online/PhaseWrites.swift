import LibPQ
import TenantMigrator

/// What an app writes while an online run goes on: at the first checkpoint of each chosen phase
/// (while the run holds no lock the app waits on), the statements of that phase run on their own
/// connection against the migrating tenant, and are kept in order so that the offline twin gets
/// exactly the same writes before it migrates. Deterministic: no timing, no background thread.
final class PhaseWrites: Sendable {
    let conninfo: String
    let schema: String
    private let plan: [OnlinePhase: [String]]
    private let done = Locked<(phases: Set<OnlinePhase>, applied: [String])>(([], []))

    /// `plan`: statements per phase, with `S` for the tenant's schema (`INSERT INTO S."order" …`).
    init(conninfo: String, schema: String, _ plan: [OnlinePhase: [String]]) {
        self.conninfo = conninfo
        self.schema = schema
        self.plan = plan
    }

    /// The checkpoint to set in the online settings.
    var checkpoint: @Sendable (OnlineCheckpoint) throws -> Void {
        { [self] checkpoint in try write(at: checkpoint.phase) }
    }

    private func write(at phase: OnlinePhase) throws {
        guard let statements = plan[phase], done.withLock({ $0.phases.insert(phase).inserted }) else { return }
        let app = try Connection(conninfo)
        for statement in statements {
            _ = try app.script(unsafeSQL: Self.naming(statement, schema: schema))
            done.withLock { $0.applied.append(statement) }
        }
    }

    /// The phases whose writes ran.
    var phases: Set<OnlinePhase> { done.value.phases }

    /// Runs every statement applied so far, in order, on the tenant in `twin`.
    func replay(inSchema twin: String, on connection: Connection) throws {
        for statement in done.value.applied { _ = try connection.script(unsafeSQL: Self.naming(statement, schema: twin)) }
    }

    private static func naming(_ statement: String, schema: String) -> String {
        statement.replacingOccurrences(of: "S.", with: "\"\(schema)\".")
    }
}
