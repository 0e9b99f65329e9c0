import LibPQ
import TypedSQL

/// What others attached to a tenant's tables that would act on the migration's own reads and
/// writes, switched off while the tenant migrates:
///
/// - **triggers** and **rules** the model did not create (it never creates either): a role that
///   could create one (by owning a table, as the app's role does in a schema adopted from a
///   framework, or by holding TRIGGER on it) must not get its code run with the migrator's rights
///   by the migration's own writes;
/// - **row security forced** on a table (`FORCE ROW LEVEL SECURITY`, which makes its policies apply
///   to the table's owner too): a policy would hide rows from the migration, which would then
///   update, archive and move only the rows it sees, and drop a column with the others' values.
///   Every migrator session runs with `row_security = off` as well (``MigratorSession/settings``),
///   so a policy that still applies (to a migrator that does not own the table) fails the statement
///   instead of hiding rows.
///
/// Inside the tenant's transaction and after its tables are locked, each of them on a table of the
/// family (of any version; the migration writes no other table of the schema, and what a cascade
/// from them writes in another table runs as that table's owner), listed by
/// ``TenantSchemaFacts``, is switched off (`ALTER TABLE … DISABLE TRIGGER`, `DISABLE RULE`,
/// `NO FORCE ROW LEVEL SECURITY`) and back on, as it was, just before commit. Other sessions never
/// see them off: the change is part of the transaction. Internal triggers (those behind foreign
/// keys) are left alone, so constraints still hold. `verify` reports triggers, rules and policies as
/// objects the model does not define.
struct ForeignHooks {
    /// One trigger, rule or forced row security.
    struct Hook: Equatable {
        enum Kind: String {
            case trigger
            case rule
            /// `FORCE ROW LEVEL SECURITY` on a table (``Hook/oid`` is the table's).
            case forcedRowSecurity = "forced row security"
        }

        let kind: Kind
        /// The trigger's (`pg_trigger`), rule's (`pg_rewrite`) or table's (`pg_class`) oid.
        let oid: UInt32
        /// The trigger's or rule's name ("" for row security).
        let name: String
        /// `tgenabled` or `ev_enabled`: `O` (origin), `A` (always) or `R` (replica).
        let mode: String
        /// Its table, qualified and quoted by the server (`format('%I.%I', …)`).
        let table: String

        /// The `ALTER TABLE` action that switches it off.
        var disabling: SQL {
            switch kind {
            case .trigger: "DISABLE TRIGGER \(id: name)"
            case .rule: "DISABLE RULE \(id: name)"
            case .forcedRowSecurity: "NO FORCE ROW LEVEL SECURITY"
            }
        }

        /// The `ALTER TABLE` action that puts it back as it was.
        var enabling: SQL {
            let mode: SQL = switch self.mode {
            case "A": "ENABLE ALWAYS"
            case "R": "ENABLE REPLICA"
            default: "ENABLE"
            }
            return switch kind {
            case .trigger: "\(mode) TRIGGER \(id: name)"
            case .rule: "\(mode) RULE \(id: name)"
            case .forcedRowSecurity: "FORCE ROW LEVEL SECURITY"
            }
        }

        /// How the log names it.
        var description: String {
            kind == .forcedRowSecurity ? "forced row security on \(table)" : "\(kind.rawValue) \(name) on \(table)"
        }
    }

    let hooks: [Hook]

    /// Switches off `hooks` of the tenant in `schema`, and drops the change capture an online
    /// migration left there when it stopped before its cutover (this transaction holds the tenant's
    /// lock, so no online migration of it is running): its triggers are not someone else's, and
    /// they go before any row is written.
    static func disable(_ hooks: [Hook], inSchema schema: String, on connection: Connection) throws -> ForeignHooks {
        let isCapture = { (hook: Hook) in hook.kind == .trigger && ChangeCapture.isCaptureTrigger(hook.name) }
        let captured = Set(hooks.filter(isCapture).map(\.table))
        if !captured.isEmpty { try OnlineCleanup.removeLeftovers(of: schema, capturedTables: captured.sorted(), on: connection) }
        return try disable(hooks.filter { !isCapture($0) }, on: connection)
    }

    /// Switches off `hooks` (found by ``TenantSchemaFacts``), each with an `ALTER TABLE` sent ahead
    /// of the migration's first statements.
    static func disable(_ hooks: [Hook], on connection: Connection) throws -> ForeignHooks {
        for hook in hooks {
            connection.logger.warning("switching off \(hook.description) for the migration: the model does not define it")
            try connection.sendWithNextRoundTrip(Statement("ALTER TABLE \(quotedByServer: hook.table) \(hook.disabling)"))
        }
        return ForeignHooks(hooks: hooks)
    }

    /// Puts back the hooks ``disable(_:on:)`` switched off that still exist, as they were, on
    /// whatever their tables are now called (the statements go out with the commit).
    func restore(on connection: Connection) throws {
        guard !hooks.isEmpty else { return }
        let rows = try connection.execute("""
            SELECT h.kind, h.oid, pg_catalog.format('%I.%I', n.nspname, c.relname)
            FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.text[]), pg_catalog.unnest($2::pg_catalog.int8[])) AS h(kind, oid)
            JOIN pg_catalog.pg_class AS c ON c.oid = CASE h.kind
                WHEN 'trigger' THEN (SELECT t.tgrelid FROM pg_catalog.pg_trigger AS t WHERE t.oid = h.oid::pg_catalog.oid)
                WHEN 'rule' THEN (SELECT r.ev_class FROM pg_catalog.pg_rewrite AS r WHERE r.oid = h.oid::pg_catalog.oid)
                ELSE h.oid::pg_catalog.oid END
            JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
            """, [CatalogArray.text(hooks.map(\.kind.rawValue)), "{" + hooks.map { String($0.oid) }.joined(separator: ",") + "}"])
        var tables: [String: String] = [:]
        for row in rows { tables["\(try row.decode(String.self, at: 0)) \(try row.decode(Int64.self, at: 1))"] = try row.decode(String.self, at: 2) }
        for hook in hooks {
            guard let table = tables["\(hook.kind.rawValue) \(hook.oid)"] else { continue }
            try connection.sendWithNextRoundTrip(Statement("ALTER TABLE \(quotedByServer: table) \(hook.enabling)"))
        }
    }
}
