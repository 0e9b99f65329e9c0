import LibPQ
import MigrationEngine

/// Stage hooks of the Notes family's v1 → v2 step: take the lock first, refresh statistics last.
public enum NotesHooks {
    public static func register(in policies: inout PolicyRegistry) {
        policies.registerHooks(family: "Notes", from: "v1", to: "v2", StepHooks(
            willMigrate: { connection, schema in try connection.execute("LOCK TABLE \(table: "note")", schema: schema) },
            didMigrate: { connection, schema in try connection.execute("ANALYZE \(table: "attachment")", schema: schema) }
        ))
    }
}
