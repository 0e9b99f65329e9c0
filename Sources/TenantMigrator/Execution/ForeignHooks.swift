import LibPQ

/// Triggers on a tenant's tables that the model did not create, switched off while the tenant
/// migrates.
///
/// The model never creates triggers, so every user trigger on a tenant table is someone else's.
/// A tenant role that could create one (by owning a table, or holding TRIGGER on it) must not get
/// its code run with the migrator's rights by the migration's own writes. So, inside the tenant's
/// transaction and after its tables are locked, each enabled user trigger on a table of the family
/// (of any version; the migration writes no other table of the schema, and what a cascade from them
/// writes in another table runs as that table's owner) — listed by the attempt's first round trip,
/// ``TenantSchemaFacts`` — is disabled
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
        /// Its table, qualified and quoted by the server (`format('%I.%I', …)`).
        let table: String
    }

    let triggers: [Trigger]

    /// Disables `triggers` of the tenant in `schema`, and drops the change capture an online
    /// migration left there when it stopped before its cutover (this transaction holds the tenant's
    /// lock, so no online migration of it is running): its triggers are not someone else's, and
    /// they go before any row is written.
    static func disable(_ triggers: [Trigger], inSchema schema: String, on connection: Connection) throws -> ForeignTriggers {
        let captured = Set(triggers.filter { ChangeCapture.isCaptureTrigger($0.name) }.map(\.table))
        if !captured.isEmpty { try OnlineCleanup.removeLeftovers(of: schema, capturedTables: captured.sorted(), on: connection) }
        return try disable(triggers.filter { !ChangeCapture.isCaptureTrigger($0.name) }, on: connection)
    }

    /// Disables `triggers` (found by ``TenantSchemaFacts``, in the attempt's first round trip), each
    /// with an `ALTER TABLE … DISABLE TRIGGER` sent ahead of the migration's first statements.
    static func disable(_ triggers: [Trigger], on connection: Connection) throws -> ForeignTriggers {
        for trigger in triggers {
            connection.logger.warning("disabling trigger \(trigger.name) on \(trigger.table) for the migration: the model does not define it")
            try connection.sendWithNextRoundTrip(Statement("ALTER TABLE \(quotedByServer: trigger.table) DISABLE TRIGGER \(id: trigger.name)"))
        }
        return ForeignTriggers(triggers: triggers)
    }

    /// Re-enables the triggers disabled by ``disable(_:on:)`` that still exist, in their original
    /// mode, on whatever their tables are now called (the statements go out with the commit).
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
            let enable: SQL = switch trigger.mode {
            case "A": "ENABLE ALWAYS TRIGGER"
            case "R": "ENABLE REPLICA TRIGGER"
            default: "ENABLE TRIGGER"
            }
            try connection.sendWithNextRoundTrip(Statement("ALTER TABLE \(quotedByServer: table) \(enable) \(id: trigger.name)"))
        }
    }
}
