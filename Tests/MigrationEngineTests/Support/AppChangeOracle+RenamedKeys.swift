import EntityModel
import LibPQ
import TypedSQL

/// Issue 30: the app renames `distinct:` keys below a pair whose way up makes a table anew (the
/// key's text attribute is dropped there; its values become rows of their own), reuses a deleted
/// row's key for a new row, and relinks. The values below follow ``AppChangeOracle/apply(_:on:)``
/// as any other change; this checks the rows the next way up makes from them, against the rules of
/// docs/Archive.md ("Rows made anew keep their ids"), from snapshots of the tenant (not from the
/// engine):
///
/// - every row the way up makes reads a value some source row holds, or is a row the table had at
///   the way down (same id, same value) whose source rows the app did not all change below (rows no
///   source row named, or whose source rows were all deleted): a row whose source rows the app all
///   renamed never comes back under its old value;
/// - a row that has, after the way up, the id a row had at the way down but another value is that
///   row renamed: its source rows all changed below, and all name it now;
/// - a row whose source rows the app all renamed to one value that no other row had, and that no
///   source row still holds under its old value, is that value now, under its id.
extension AppChangeOracle {
    /// A `distinct:` key of ``tables`` that the upper version derives through a link: the lower
    /// table and its key column, the upper table and its link, the made table and its value column.
    struct ExtractedKey {
        var lower: String, key: String, upper: String, link: String, made: String, value: String
    }

    /// The keys the app renames below (``AppWorkload``) and whose made rows are checked.
    var extractedKeys: [ExtractedKey] {
        tables.flatMap { pair in
            pair.derivations.sorted { $0.key < $1.key }.compactMap { column, derivation -> ExtractedKey? in
                guard case let .throughLink(link, table, value) = derivation else { return nil }
                return ExtractedKey(lower: pair.lower.name, key: column, upper: pair.upper.name, link: link, made: table, value: value)
            }
        }
    }

    /// Where the snapshots live (in the walk's transaction, rolled back with it).
    static let renamesSchema = "renamed_keys"

    /// Before a way down: the made rows and which source row names which.
    func snapshotBeforeDown(_ schema: String, on connection: Connection) throws {
        try connection.execute("CREATE SCHEMA IF NOT EXISTS \(id: Self.renamesSchema)", schema: schema)
        for (index, key) in extractedKeys.enumerated() {
            try connection.execute("DROP TABLE IF EXISTS \(id: Self.renamesSchema).\(id: "made_\(index)"), \(id: Self.renamesSchema).\(id: "named_\(index)")", schema: schema)
            try connection.execute("CREATE TABLE \(id: Self.renamesSchema).\(id: "made_\(index)") AS SELECT id, \(id: key.value)::text AS value FROM \(table: key.made)", schema: schema)
            try connection.execute("CREATE TABLE \(id: Self.renamesSchema).\(id: "named_\(index)") AS SELECT id, \(id: key.link) AS made FROM \(table: key.upper)", schema: schema)
        }
    }

    /// The source rows' keys below: `after down` right after the way down, `before up` right before the next way up.
    func snapshotKeys(_ name: String, _ schema: String, on connection: Connection) throws {
        for (index, key) in extractedKeys.enumerated() {
            let table = "\(name)_\(index)"
            try connection.execute("DROP TABLE IF EXISTS \(id: Self.renamesSchema).\(id: table)", schema: schema)
            try connection.execute("CREATE TABLE \(id: Self.renamesSchema).\(id: table) AS SELECT id, \(id: key.key)::text AS value FROM \(table: key.lower)", schema: schema)
        }
    }

    /// After the way up that follows ``snapshotBeforeDown(_:on:)``, `snapshotKeys("down")` and
    /// `snapshotKeys("up")`: what breaks the rules above, as sentences.
    func renamedKeyViolations(_ schema: String, on connection: Connection) throws -> [String] {
        var found: [String] = []
        for (index, key) in extractedKeys.enumerated() {
            let s = Self.renamesSchema
            let made: SQL = "\(id: s).\(id: "made_\(index)")", named: SQL = "\(id: s).\(id: "named_\(index)")"
            let down: SQL = "\(id: s).\(id: "down_\(index)")", up: SQL = "\(id: s).\(id: "up_\(index)")"
            // The source rows of a row made before (still there), and whether the app changed each.
            let sources: SQL = "SELECT n.made AS p, n.id, d.value IS DISTINCT FROM u.value AS changed, u.value FROM \(named) AS n "
                + "JOIN \(down) AS d ON d.id = n.id JOIN \(up) AS u ON u.id = n.id WHERE n.made IS NOT NULL"
            let gone: SQL = "SELECT p FROM (\(sources)) AS g GROUP BY p HAVING pg_catalog.bool_and(changed)"
            let now: SQL = "SELECT e.id, e.\(id: key.value)::text AS value FROM \(table: key.made) AS e"
            let queries: [(String, SQL)] = [
                ("made row neither named nor kept", "SELECT e.id::text || ' ' || coalesce(e.value, 'NULL') FROM (\(now)) AS e "
                    + "WHERE NOT EXISTS (SELECT FROM \(table: key.upper) AS x WHERE x.\(id: key.link) = e.id) "
                    + "AND NOT (EXISTS (SELECT FROM \(made) AS m WHERE m.id = e.id AND m.value IS NOT DISTINCT FROM e.value) "
                    + "AND e.id NOT IN (\(gone)))"),
                ("row renumbered to another value without a rename", "SELECT e.id::text || ' ' || coalesce(e.value, 'NULL') FROM (\(now)) AS e "
                    + "JOIN \(made) AS m ON m.id = e.id WHERE m.value IS DISTINCT FROM e.value AND NOT (e.id IN (\(gone)) "
                    + "AND NOT EXISTS (SELECT FROM (\(sources)) AS g JOIN \(table: key.upper) AS x ON x.id = g.id WHERE g.p = e.id "
                    + "AND x.\(id: key.link) IS DISTINCT FROM e.id))"),
                ("renamed row not under its id", "SELECT m.id::text || ' ' || coalesce(m.value, 'NULL') || ' → ' || r.value FROM \(made) AS m "
                    + "JOIN (SELECT p, pg_catalog.min(value) AS value FROM (\(sources)) AS g GROUP BY p "
                    + "HAVING pg_catalog.bool_and(changed) AND pg_catalog.count(DISTINCT value) = 1 AND pg_catalog.bool_and(value IS NOT NULL)) AS r ON r.p = m.id "
                    + "WHERE (SELECT pg_catalog.count(*) FROM \(made) AS o WHERE o.value IS NOT DISTINCT FROM m.value) = 1 "
                    + "AND NOT EXISTS (SELECT FROM \(made) AS o WHERE o.value = r.value) "
                    + "AND NOT EXISTS (SELECT FROM \(up) AS u WHERE u.value IS NOT DISTINCT FROM m.value) "
                    + "AND NOT EXISTS (SELECT FROM (\(sources)) AS o WHERE o.p <> m.id AND o.value = r.value) "
                    + "AND NOT EXISTS (SELECT FROM (\(now)) AS e WHERE e.id = m.id AND e.value = r.value)"),
            ]
            for (rule, query) in queries {
                for row in try connection.execute(query, schema: schema) {
                    found.append("\(key.made) (\(key.lower).\(key.key) renamed below): \(rule): \(try row.decode(String.self, at: 0))")
                }
            }
        }
        return found
    }
}
