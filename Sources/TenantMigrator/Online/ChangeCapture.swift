import EntityModel
import LibPQ
import MigrationEngine
import TypedSQL

/// What the app changes in a tenant's live tables while it migrates online: AFTER ROW triggers on
/// every live table append the key of each inserted, updated or deleted row to a change log.
///
/// The log (`_tm_change_log`, unlogged: a crash restarts the run anyway) and the trigger function
/// live in the run's private schema (``OnlineSchemas/work``), which no other role may use. The
/// function is `SECURITY DEFINER` (it runs as the migrator, whatever role writes the row), owned
/// by the migrator, with `search_path = pg_catalog, pg_temp` fixed and `EXECUTE` revoked from
/// PUBLIC; the triggers are `ENABLE ALWAYS` (they fire under `session_replication_role =
/// replica` too). A TRUNCATE is logged as a key-less entry, which fails the run.
///
/// The triggers are inert once the run is gone: each call first asks whether the run still holds
/// the tenant (``OnlineLease/heldSQL``: its lease is in the catalog, and the runner's server
/// process lives, by number, start time and user, which no other session can fake; the server
/// reads the processes once per transaction). While it does the change is logged; after the run
/// ended or crashed nothing is, so a crashed run costs the app one
/// function call per written row until the next run of the tenant (online or not), or
/// `tenant-migrate online cleanup`, removes them.
///
/// On Citus the triggers fire on the tenant's worker, where neither the catalog nor the runner's
/// session is: there (``init(schemas:inSchemaLease:)``) the log and the functions live in the
/// tenant's own schema under the shadow's naming (`_tm_shadow__tm_change_log`: colocated with the
/// tables, the migrator's alone), the liveness is an ``InSchemaLease`` row, and every trigger
/// statement runs under `citus.enable_unsafe_triggers` (``Connection/allowingTriggers()``).
struct ChangeCapture {
    let schemas: OnlineSchemas
    /// Where the log and the functions live, and how they are named there.
    let objects: SchemaNaming
    /// SQL true while the run holds the tenant, which the triggers ask before they log.
    let held: SQL

    /// The capture of a run on plain PostgreSQL: its objects in the run's private schema, its
    /// liveness the run's ``OnlineLease`` (its session, by the catalog).
    init(schemas: OnlineSchemas, lease: OnlineLease) {
        self.schemas = schemas
        objects = SchemaNaming(schema: schemas.work, tables: .model)
        held = lease.heldSQL
    }

    /// The capture of a run inside the tenant's schema (Citus): its objects there under the
    /// lease's naming, its liveness the lease row.
    init(schemas: OnlineSchemas, inSchemaLease lease: InSchemaLease) {
        self.schemas = schemas
        objects = SchemaNaming(schema: lease.schema, tables: lease.naming)
        held = lease.heldSQL
    }

    /// One of the capture's own objects, qualified.
    private func object(_ name: String) -> SQL { "\(schema: objects.schema, table: objects.tables.name(name))" }

    static let logTable = "_tm_change_log"
    static let rowTrigger = "_tm_online_capture"
    static let truncateTrigger = "_tm_online_truncate"
    static let rowFunction = "_tm_capture"
    static let truncateFunction = "_tm_truncated"

    /// Whether a trigger is one of the capture's (by its reserved name).
    static func isCaptureTrigger(_ name: String) -> Bool { name == rowTrigger || name == truncateTrigger }

    var log: SQL { object(Self.logTable) }

    /// Creates the log and the functions in the work schema (which exists).
    ///
    /// Each function's first argument names the table, as the model does (the trigger's
    /// `TG_TABLE_NAME` is the relation it fires on: on Citus a shard, `recipe_102008`). The row
    /// function's second names the table's key: `id` for an `id` whose `::text` is its logged
    /// text (an integer, text or `uuid` id: ``CapturedKey/isPlainText(_:)``), logged without
    /// reading the rest of the row; else a JSON array of the key's columns (`["code"]`,
    /// `["invoice","line_no"]`), each logged as its JSON value's text (`to_jsonb(OLD) ->> 'code'`:
    /// a `char(n)` with its padding, a date in ISO whatever the app's `DateStyle`), as
    /// ``CapturedKey`` spells keys. Each further argument, `column:table`, is a foreign key a
    /// mapping reads through: a change to the row also logs the rows it referred to before and
    /// after (as not changed themselves: `direct` false), whose fate depends on what refers to
    /// them; their keys are the foreign key's JSON text, as the referenced key's (same type). An
    /// UPDATE that changes a row's key logs the old key with the new one (`renamed_to`), so that
    /// catch-up renames the shadow's row in place as the app's UPDATE did, its foreign keys' `ON
    /// UPDATE` actions included (``CatchUpRound``).
    func createLog(on connection: Connection) throws {
        let probe: SQL = "NOT \(held)"
        let insert: SQL = "INSERT INTO \(log) (relation, key, direct, renamed_to) VALUES"
        // The key of the trigger's row `OLD` or `NEW` (a PL/pgSQL name, one of those two constants):
        // each key column's JSON text (TG_ARGV[1] is a JSON array of the key's column names). Worked
        // out into a variable before the INSERT: Citus refuses a subquery in an INSERT (0A000).
        func compositeKey(_ row: String) -> SQL {
            "ARRAY(SELECT pg_catalog.to_jsonb(\(raw: row)) OPERATOR(pg_catalog.->>) k.name "
                + "FROM pg_catalog.jsonb_array_elements_text(TG_ARGV[1]::pg_catalog.jsonb) WITH ORDINALITY AS k (name, n) ORDER BY k.n)"
        }
        let rowFunction = object(Self.rowFunction), truncateFunction = object(Self.truncateFunction)
        let statements: [SQL] = [
            "CREATE UNLOGGED TABLE \(log) (relation text NOT NULL, key pg_catalog.text[] NOT NULL, direct boolean NOT NULL, renamed_to pg_catalog.text[])",
            """
            CREATE FUNCTION \(rowFunction)() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
            SET search_path = pg_catalog, pg_temp AS $capture$
            DECLARE
                reference text;
                old_key text[];
                new_key text[];
                before text;
                after text;
            BEGIN
                IF \(probe) THEN RETURN NULL; END IF;
                IF TG_ARGV[1] = 'id' THEN
                    IF TG_OP = 'UPDATE' AND NEW.id IS DISTINCT FROM OLD.id THEN
                        \(insert) (TG_ARGV[0], ARRAY[OLD.id::pg_catalog.text], true, ARRAY[NEW.id::pg_catalog.text]);
                        \(insert) (TG_ARGV[0], ARRAY[NEW.id::pg_catalog.text], true, NULL);
                    ELSIF TG_OP = 'INSERT' THEN
                        \(insert) (TG_ARGV[0], ARRAY[NEW.id::pg_catalog.text], true, NULL);
                    ELSE
                        \(insert) (TG_ARGV[0], ARRAY[OLD.id::pg_catalog.text], true, NULL);
                    END IF;
                ELSE
                    IF TG_OP <> 'DELETE' THEN new_key := \(compositeKey("NEW")); END IF;
                    IF TG_OP <> 'INSERT' THEN
                        old_key := \(compositeKey("OLD"));
                        \(insert) (TG_ARGV[0], old_key, true, CASE WHEN TG_OP = 'UPDATE' AND new_key IS DISTINCT FROM old_key THEN new_key END);
                    END IF;
                    IF TG_OP <> 'DELETE' AND new_key IS DISTINCT FROM old_key THEN \(insert) (TG_ARGV[0], new_key, true, NULL); END IF;
                END IF;
                FOR i IN 2 .. TG_NARGS - 1 LOOP
                    reference := pg_catalog.split_part(TG_ARGV[i], ':', 1);
                    before := CASE WHEN TG_OP <> 'INSERT' THEN pg_catalog.to_jsonb(OLD) OPERATOR(pg_catalog.->>) reference END;
                    after := CASE WHEN TG_OP <> 'DELETE' THEN pg_catalog.to_jsonb(NEW) OPERATOR(pg_catalog.->>) reference END;
                    CONTINUE WHEN before IS NOT DISTINCT FROM after;
                    IF before IS NOT NULL THEN \(insert) (pg_catalog.split_part(TG_ARGV[i], ':', 2), ARRAY[before], false, NULL); END IF;
                    IF after IS NOT NULL THEN \(insert) (pg_catalog.split_part(TG_ARGV[i], ':', 2), ARRAY[after], false, NULL); END IF;
                END LOOP;
                RETURN NULL;
            END
            $capture$
            """,
            """
            CREATE FUNCTION \(truncateFunction)() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
            SET search_path = pg_catalog, pg_temp AS $truncated$
            BEGIN
                IF \(probe) THEN RETURN NULL; END IF;
                \(insert) (TG_ARGV[0], '{}'::pg_catalog.text[], true, NULL);
                RETURN NULL;
            END
            $truncated$
            """,
            "REVOKE ALL ON FUNCTION \(rowFunction)() FROM PUBLIC",
            "REVOKE ALL ON FUNCTION \(truncateFunction)() FROM PUBLIC",
        ]
        for statement in statements { try connection.execute(statement) }
        try revokeOtherRoles(on: connection)
    }

    /// Whatever default privileges gave other roles on the log or the functions is revoked (in the
    /// tenant's schema, on the objects of the capture's naming only: the app keeps its rights on
    /// the live tables).
    private func revokeOtherRoles(on connection: Connection) throws {
        let grants = try connection.execute("""
            SELECT 'TABLE ' || pg_catalog.format('%I.%I', n.nspname, c.relname), pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee))
            FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace, pg_catalog.aclexplode(c.relacl) a
            WHERE n.nspname = $1 AND pg_catalog.starts_with(c.relname, $2) AND a.grantee <> c.relowner AND a.grantee <> 0
            UNION
            SELECT 'FUNCTION ' || pg_catalog.format('%I.%I', n.nspname, p.proname) || '()', pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee))
            FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace, pg_catalog.aclexplode(p.proacl) a
            WHERE n.nspname = $1 AND pg_catalog.starts_with(p.proname, $2) AND a.grantee <> p.proowner AND a.grantee <> 0
            """ as SQL, [objects.schema, objects.tables.prefix]).map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
        for (object, grantee) in grants { try connection.execute("REVOKE ALL ON \(quotedByServer: object) FROM \(quotedByServer: grantee)") }
    }

    /// Installs the triggers on `tables` (the table, and the foreign keys mappings read through:
    /// column and referenced table), in the caller's transaction, which holds them in SHARE ROW
    /// EXCLUSIVE mode (writes wait for that, reads do not).
    func install(on tables: [(table: Table, references: [(column: String, table: String)])], connection: Connection) throws {
        try install(tables.map { ($0.table.name, Self.keyArgument(of: $0.table), $0.references) }, connection: connection)
    }

    /// Installs the triggers on `tables` keyed by integers (name, key columns, and the foreign keys
    /// mappings read through), as ``install(on:connection:)`` does.
    func install(on tables: [(name: String, key: [String], references: [(column: String, table: String)])], connection: Connection) throws {
        try install(tables.map { ($0.name, $0.key == ["id"] ? "id" : Self.jsonArray($0.key), $0.references) }, connection: connection)
    }

    private func install(_ tables: [(name: String, key: String, references: [(column: String, table: String)])], connection: Connection) throws {
        var statements: [SQL] = []
        for (name, key, references) in tables {
            let table: SQL = "\(schema: schemas.tenant, table: name)"
            let arguments = [name, key] + references.map { "\($0.column):\($0.table)" }
            statements += [
                "CREATE TRIGGER \(id: Self.rowTrigger) AFTER INSERT OR UPDATE OR DELETE ON \(table) "
                    + "FOR EACH ROW EXECUTE FUNCTION \(object(Self.rowFunction))(\(literals: arguments))",
                "CREATE TRIGGER \(id: Self.truncateTrigger) AFTER TRUNCATE ON \(table) "
                    + "FOR EACH STATEMENT EXECUTE FUNCTION \(object(Self.truncateFunction))(\(literal: name))",
                "ALTER TABLE \(table) ENABLE ALWAYS TRIGGER \(id: Self.rowTrigger)",
                "ALTER TABLE \(table) ENABLE ALWAYS TRIGGER \(id: Self.truncateTrigger)",
            ]
        }
        try connection.pipeline(try connection.allowingTriggers() + statements.map { Statement($0) })
    }

    /// The row function's second argument for `table` (see ``createLog(on:)``): `id`, or the key's
    /// columns as a JSON array.
    static func keyArgument(of table: Table) -> String {
        let key = table.primaryKey.columns
        if key == ["id"], let id = table.column(named: "id"), CapturedKey.isPlainText(id.type) { return "id" }
        return jsonArray(key)
    }

    /// `names` as a JSON array of strings.
    private static func jsonArray(_ names: [String]) -> String {
        "[" + names.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }.joined(separator: ",") + "]"
    }

    /// The qualified tables of `schema` that carry the capture triggers (left by a run that
    /// crashed, or by this one).
    static func capturedTables(inSchema schema: String, on connection: Connection) throws -> [String] {
        try connection.execute("""
            SELECT DISTINCT pg_catalog.format('%I.%I', n.nspname, c.relname)
            FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1 AND t.tgname IN ($2, $3) ORDER BY 1
            """ as SQL, [schema, rowTrigger, truncateTrigger]).map { try $0.decode(String.self, at: 0) }
    }

    /// Drops the capture triggers from `tables` (qualified), in the caller's transaction, which
    /// must hold them (DROP TRIGGER takes ACCESS EXCLUSIVE).
    static func removeTriggers(from tables: [SQL], on connection: Connection) throws {
        var statements: [Statement] = []
        for table in tables {
            statements.append(Statement("DROP TRIGGER IF EXISTS \(id: rowTrigger) ON \(table)"))
            statements.append(Statement("DROP TRIGGER IF EXISTS \(id: truncateTrigger) ON \(table)"))
        }
        if !statements.isEmpty { try connection.pipeline(try connection.allowingTriggers() + statements) }
    }

    /// Moves the log's entries into the round's change set (`changed`, by default `pg_temp._tm_changed`), each key once
    /// (changed itself if any entry says so; renamed to the key its entries name, where they name one).
    ///
    /// - Returns: the entries the app's changes made, the distinct rows, and a table that was truncated.
    func take(into changed: SQL = "pg_temp.\(id: CatchUpRound.changedTable)", on connection: Connection) throws -> (entries: Int, rows: Int, truncated: String?) {
        let row = try connection.execute("""
            WITH taken AS (DELETE FROM \(log) RETURNING relation, key, direct, renamed_to),
            kept AS (INSERT INTO \(changed) AS tm_c (relation, key, direct, renamed_to)
                     SELECT relation, key, pg_catalog.bool_or(direct),
                            CASE WHEN pg_catalog.min(renamed_to) OPERATOR(pg_catalog.=) pg_catalog.max(renamed_to) THEN pg_catalog.min(renamed_to) END
                     FROM taken GROUP BY relation, key
                     ON CONFLICT (relation, key) DO UPDATE SET direct = tm_c.direct OR EXCLUDED.direct,
                        renamed_to = CASE WHEN tm_c.renamed_to IS NULL OR tm_c.renamed_to OPERATOR(pg_catalog.=) EXCLUDED.renamed_to THEN EXCLUDED.renamed_to
                                          WHEN EXCLUDED.renamed_to IS NULL THEN tm_c.renamed_to END
                     RETURNING relation, key)
            SELECT (SELECT pg_catalog.count(*) FROM taken WHERE taken.direct)::pg_catalog.int8, (SELECT pg_catalog.count(*) FROM kept)::pg_catalog.int8,
                   (SELECT k.relation FROM kept AS k WHERE pg_catalog.cardinality(k.key) = 0 LIMIT 1)
            """ as SQL).first
        return (Int(try row?.decode(Int64.self, at: 0) ?? 0), Int(try row?.decode(Int64.self, at: 1) ?? 0), try row?.decode(String?.self, at: 2))
    }

    /// Entries waiting in the log.
    func pending(on connection: Connection) throws -> Int {
        Int(try connection.execute("SELECT pg_catalog.count(*)::pg_catalog.int8 FROM \(log)" as SQL).first?.decode(Int64.self, at: 0) ?? 0)
    }
}
