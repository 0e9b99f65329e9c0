import Foundation
import EntityModel
import LibPQ
import MigrationEngine
import TenantMigrator
import TypedSQL

/// The DBA's psql script the fleet benchmark compares the tool with: v1 → v3 by hand, doing the same
/// useful work as the tool, so that the ratio compares equal work.
extension FleetBench {
    /// What the script does for each tenant, for the benchmark's output.
    static func dbaScriptSummary(_ version: ModelVersion, quoting q: some SQLQuoting) -> String {
        // Every statement of the script ends a line with a semicolon.
        let statements = dbaScript(tenants: ["x"], version: version, quoting: q).split(separator: "\n").count { $0.hasSuffix(";") } - 1
        return "the DBA's script, per tenant: one transaction of \(statements) statements (BEGIN and COMMIT included), sent one at a time by psql: " + dbaScriptWork
    }

    private static let dbaScriptWork = """
        v2's renames and type \
        change; the archive the tool keeps (_tm_archive and its index, the Meat and Fish types with the type left in \
        their place, and each recipe ingredient's unit where v3 → v2 would not give it back, its ingredient's being another: \
        the names all come back); Meat and Fish made Entrée; UnitOfMeasure and \
        Ingredient filled by INSERT … SELECT DISTINCT; the links set by one UPDATE … FROM; the old columns dropped; v3's \
        constraints and indexes; the catalog row (announced to listeners, as the tool announces it) and a history row
        """

    /// v1 → v3 by hand for `tenants`, as a DBA would write it: per tenant one transaction with the
    /// renames and type change, the archive of what the step overwrites or that v3 → v2 cannot give
    /// back (as the tool keeps it), the new tables filled by INSERT … SELECT
    /// DISTINCT, the links set by one UPDATE … FROM, Meat and Fish made Entrée, the old columns
    /// dropped, v3's constraints and indexes, and the catalog row updated and announced (and a history row).
    static func dbaScript(tenants: [String], version: ModelVersion, quoting q: some SQLQuoting) -> String {
        let catalog = TenantCatalog()
        var script = "SET client_min_messages = warning;\n"
        for tenant in tenants {
            let s = q.quoteIdentifier("tenant_" + tenant)
            let archive = TenantArchive.createStatements.map { $0.text(schema: "tenant_" + tenant, quoting: q) }.joined(separator: ";\n")
            let columns = "(step_from, step_to, table_name, column_name, row_id, value)"
            script += """
                BEGIN;
                ALTER TABLE \(s).recipe RENAME COLUMN instructions TO method;
                ALTER TABLE \(s).recipe ADD COLUMN prep_minutes integer, ALTER COLUMN servings TYPE integer;
                \(archive);
                INSERT INTO \(s)._tm_archive \(columns)
                    SELECT 'v2', 'v3', 'recipe', 'type', id, type FROM \(s).recipe WHERE type IN ('Meat', 'Fish');
                UPDATE \(s).recipe SET type = 'Entrée' WHERE type IN ('Meat', 'Fish');
                UPDATE \(s)._tm_archive SET left_value = 'Entrée', compares = true WHERE table_name = 'recipe' AND column_name = 'type';
                \(RecipesByHand.newTables(s))
                ALTER TABLE \(s).recipe_ingredient ADD COLUMN ingredient_id bigint;
                UPDATE \(s).recipe_ingredient AS ri SET ingredient_id = i.id FROM \(s).ingredient AS i WHERE i.name = ri.name;
                INSERT INTO \(s)._tm_archive (step_from, step_to, table_name, column_name, row_id, value, left_value, compares)
                    SELECT 'v2', 'v3', 'recipe_ingredient', 'unit_of_measure', ri.id, ri.unit_of_measure, jsonb_build_array(u.name)::text, true
                    FROM \(s).recipe_ingredient AS ri JOIN \(s).ingredient AS i ON i.id = ri.ingredient_id
                    LEFT JOIN \(s).unit_of_measure AS u ON u.id = i.unit_of_measure_id WHERE ri.unit_of_measure IS DISTINCT FROM u.name;
                ALTER TABLE \(s).recipe_ingredient ALTER COLUMN ingredient_id SET NOT NULL, DROP COLUMN name, DROP COLUMN unit_of_measure,
                    ADD CONSTRAINT recipe_ingredient_ingredient_id_fkey FOREIGN KEY (ingredient_id) REFERENCES \(s).ingredient (id) ON DELETE RESTRICT;
                ALTER TABLE \(s).ingredient ADD CONSTRAINT ingredient_unit_of_measure_id_fkey
                    FOREIGN KEY (unit_of_measure_id) REFERENCES \(s).unit_of_measure (id) ON DELETE SET NULL;
                CREATE INDEX recipe_ingredient_ingredient_id_idx ON \(s).recipe_ingredient (ingredient_id);
                CREATE INDEX ingredient_unit_of_measure_id_idx ON \(s).ingredient (unit_of_measure_id);
                \(catalog.recordVersionSQL(tenant, version: version).text(schema: catalog.schema, quoting: q));
                \(catalog.historySQL(tenant, family: "Recipes", operation: .migrate, from: "v1", to: version.name).text(schema: catalog.schema, quoting: q));
                COMMIT;

                """
        }
        return script
    }

    /// What a v3 tenant holds, independent of the ids given to new Ingredient and UnitOfMeasure rows:
    /// its rows, and its archive (every entry but its time, and but the tool's one-row marker of
    /// what the way back derives, which the script does not write: the tool does a little more).
    static func checksum(schema: String, on connection: Connection) throws -> String {
        let s = connection.quoteIdentifier(schema)
        return try connection.execute(unsafeSQL: """
            SELECT (SELECT md5(string_agg(concat_ws('|', ri.id, ri.recipe_id, ri.quantity, i.name, u.name), ',' ORDER BY ri.id))
                    FROM \(s).recipe_ingredient AS ri JOIN \(s).ingredient AS i ON i.id = ri.ingredient_id
                    LEFT JOIN \(s).unit_of_measure AS u ON u.id = i.unit_of_measure_id)
                || '/' || (SELECT md5(string_agg(concat_ws('|', id, name, type, servings, prep_minutes, method), ',' ORDER BY id)) FROM \(s).recipe)
                || '/' || (SELECT count(*) FROM \(s).ingredient) || ' ingredients/' || (SELECT count(*) FROM \(s).unit_of_measure) || ' units'
                || '/archive ' || (SELECT count(*) || ' entries ' || coalesce(md5(string_agg(concat_ws('|', step_from, step_to, table_name, column_name,
                       row_id, coalesce(value, '<null>'), coalesce(left_value, '<null>'), compares), ',' ORDER BY table_name, column_name, row_id)), '')
                    FROM \(s)._tm_archive WHERE column_name <> '#way back')
            """)[0].decode(String.self, at: 0)
    }
}

/// Runs the DBA's script for some tenants through psql, one session per part, the parts at once.
struct PsqlRun {
    let psql: String
    let conninfo: String
    let version: ModelVersion
    let quoting: Connection

    /// Runs the script of each part of `parts` in a psql session of its own, all at once; returns
    /// the wall time (the scripts are written before the clock starts).
    func run(_ parts: [[String]]) throws -> Duration {
        let files = parts.indices.map { FileManager.default.temporaryDirectory.appendingPathComponent("tenant-migrate-bench-\(getuid())-fleet-\($0).sql") }
        defer { files.forEach { try? FileManager.default.removeItem(at: $0) } }
        for (part, file) in zip(parts, files) {
            try FleetBench.dbaScript(tenants: part, version: version, quoting: quoting).write(to: file, atomically: true, encoding: .utf8)
        }
        return try runPsqlSessions(psql, conninfo: conninfo, files: files)
    }
}
