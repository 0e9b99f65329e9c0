import LibPQ

/// Triggers on a tenant's tables that the model did not create, switched off while the tenant
/// migrates.
///
/// The model never creates triggers, so every user trigger on a tenant table is someone else's.
/// A tenant role that could create one (by owning a table, or holding TRIGGER on it) must not get
/// its code run with the migrator's rights by the migration's own writes. So, inside the tenant's
/// transaction and after its tables are locked, each enabled user trigger is disabled
/// (`ALTER TABLE … DISABLE TRIGGER`), and re-enabled, in its original mode, just before commit.
/// Other sessions never see them disabled: the change is part of the transaction. Internal
/// triggers (those behind foreign keys) are left alone, so constraints still hold.
/// `verify` reports these triggers as objects the model does not define.
struct ForeignTriggers {
    struct Trigger {
        let oid: UInt32
        let name: String
        /// `pg_trigger.tgenabled`: `O` (origin), `A` (always) or `R` (replica).
        let mode: String
    }

    let triggers: [Trigger]

    /// Finds and disables every enabled user trigger on the tables of `schema`.
    static func disable(inSchema schema: String, on connection: Connection) throws -> ForeignTriggers {
        let rows = try connection.execute("""
            SELECT t.oid::pg_catalog.int8, t.tgname::pg_catalog.text, t.tgenabled::pg_catalog.text,
                   pg_catalog.format('%I.%I', n.nspname, c.relname)
            FROM pg_catalog.pg_trigger t
            JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1 AND NOT t.tgisinternal AND t.tgenabled <> 'D'
            ORDER BY c.relname, t.tgname
            """, [schema])
        var triggers: [Trigger] = []
        var capturedTables: Set<String> = []
        for row in rows {
            let trigger = Trigger(
                oid: UInt32(try row.decode(Int64.self, at: 0)), name: try row.decode(String.self, at: 1),
                mode: try row.decode(String.self, at: 2)
            )
            let table = try row.decode(String.self, at: 3)
            if ChangeCapture.isCaptureTrigger(trigger.name) {
                capturedTables.insert(table)
                continue
            }
            connection.logger.warning("disabling trigger \(trigger.name) on \(table) for the migration: the model does not define it")
            try connection.execute("ALTER TABLE \(table) DISABLE TRIGGER \(connection.quoteIdentifier(trigger.name))")
            triggers.append(trigger)
        }
        if !capturedTables.isEmpty {
            // An online run of this tenant stopped before its cutover (this transaction holds the
            // tenant's lock, so it is not running): its capture goes before any row is written.
            try OnlineCleanup.removeLeftovers(of: schema, capturedTables: capturedTables.sorted(), on: connection)
        }
        return ForeignTriggers(triggers: triggers)
    }

    /// Re-enables the triggers disabled by ``disable(inSchema:on:)`` that still exist, in their
    /// original mode, on whatever their tables are now called.
    func restore(on connection: Connection) throws {
        guard !triggers.isEmpty else { return }
        let rows = try connection.execute("""
            SELECT t.oid::pg_catalog.int8, pg_catalog.format('%I.%I', n.nspname, c.relname)
            FROM pg_catalog.pg_trigger t
            JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE t.oid = ANY($1::pg_catalog.int8[]::pg_catalog.oid[])
            """, ["{" + triggers.map { String($0.oid) }.joined(separator: ",") + "}"])
        var tables: [UInt32: String] = [:]
        for row in rows { tables[UInt32(try row.decode(Int64.self, at: 0))] = try row.decode(String.self, at: 1) }
        for trigger in triggers {
            guard let table = tables[trigger.oid] else { continue }
            let enable = switch trigger.mode {
            case "A": "ENABLE ALWAYS TRIGGER"
            case "R": "ENABLE REPLICA TRIGGER"
            default: "ENABLE TRIGGER"
            }
            try connection.execute("ALTER TABLE \(table) \(enable) \(connection.quoteIdentifier(trigger.name))")
        }
    }
}
