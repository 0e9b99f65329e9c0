import EntityModel
import LibPQ
import TypedSQL

/// The rows of a version's tables before a round trip, and the values that did not come back.
///
/// Rows are kept as `jsonb` (one value per column, whatever its position in the table) in a
/// temporary table, keyed by their primary key; the comparison is set-based: one query per table
/// for missing rows, one for changed values (`jsonb_each` of the row before against the row
/// after), one for rows that were not there before.
struct RoundTripSnapshot {
    static let table: SQL = "pg_temp.tm_round_trip_before"

    let tables: [Table]
    let schema: String

    init(version: ModelVersion, schema: String) {
        self.tables = version.relationalSchema().tables.filter { !SQLName.isToolName($0.name) }.sorted { $0.name < $1.name }
        self.schema = schema
    }

    /// Copies every row aside.
    func take(on connection: Connection) throws {
        try connection.execute("CREATE TEMP TABLE tm_round_trip_before (tbl text NOT NULL, key text NOT NULL, item jsonb NOT NULL)")
        for table in tables {
            try connection.execute(
                "INSERT INTO \(Self.table) SELECT $1, \(key(table)), pg_catalog.to_jsonb(t) FROM \(schema: schema, table: table.name) AS t",
                [table.name]
            )
        }
    }

    /// Every value that is not as it was: changed values, missing rows, new rows.
    func differences(on connection: Connection) throws -> [RoundTripDifference] {
        var found: [RoundTripDifference] = []
        for table in tables {
            let now: SQL = "SELECT \(key(table)) AS key, pg_catalog.to_jsonb(t) AS item FROM \(schema: schema, table: table.name) AS t"
            let changed = try connection.execute(
                """
                SELECT b.key, b.item ->> 'entity', k.key, k.value::text, (a.item -> k.key)::text \
                FROM \(Self.table) AS b JOIN (\(now)) AS a ON a.key = b.key CROSS JOIN LATERAL pg_catalog.jsonb_each(b.item) AS k \
                WHERE b.tbl = $1 AND (a.item -> k.key) IS DISTINCT FROM k.value ORDER BY pg_catalog.length(b.key), b.key, k.key
                """,
                [table.name]
            )
            for row in changed {
                let column = try row.decode(String.self, at: 2)
                found.append(RoundTripDifference(
                    table: table.name, entity: try entity(table, row.decode(String?.self, at: 1)), column: column,
                    attribute: attribute(table, column), row: try row.decode(String.self, at: 0),
                    before: try row.decode(String?.self, at: 3), after: try row.decode(String?.self, at: 4)
                ))
            }
            let before: SQL = "SELECT key, item FROM \(Self.table) WHERE tbl = $1"
            // Rows before that are gone, then rows now that were not there.
            for (from, to, missing) in [(before, now, true), (now, before, false)] {
                let rows = try connection.execute(
                    """
                    SELECT x.key, x.item ->> 'entity', x.item::text FROM (\(from)) AS x WHERE NOT EXISTS (SELECT FROM (\(to)) AS y WHERE y.key = x.key) \
                    ORDER BY pg_catalog.length(x.key), x.key
                    """,
                    [table.name]
                )
                for row in rows {
                    let item = try row.decode(String.self, at: 2)
                    found.append(RoundTripDifference(
                        table: table.name, entity: try entity(table, row.decode(String?.self, at: 1)), column: nil, attribute: nil,
                        row: try row.decode(String.self, at: 0), before: missing ? item : nil, after: missing ? nil : item
                    ))
                }
            }
        }
        return found
    }

    /// The row's primary key as text: `17`, or `3,8` for a join table.
    private func key(_ table: Table) -> SQL {
        let columns = table.primaryKey.columns.map { "t.\(id: $0)::text" as SQL }
        return columns.count == 1 ? columns[0] : "pg_catalog.concat_ws(',', \(columns, joinedBy: ", "))"
    }

    /// The row's entity: its discriminator, else the table's root entity (nil for a join table).
    private func entity(_ table: Table, _ discriminator: String?) -> String? {
        guard table.columns.contains(where: { $0.origin == .discriminator }), let discriminator else {
            if case let .entity(root) = table.origin { return root }
            return nil
        }
        return discriminator
    }

    /// `Entity.attribute` (or `.relationship`) stored in the column.
    private func attribute(_ table: Table, _ column: String) -> String? {
        switch table.column(named: column)?.origin {
        case let .attribute(entity, attribute): return "\(entity).\(attribute)"
        case let .relationship(entity, relationship),
             let .joinSource(entity, relationship),
             let .joinDestination(entity, relationship): return "\(entity).\(relationship)"
        default: return nil
        }
    }
}

/// A value (or row) that a round trip did not give back as it was.
public struct RoundTripDifference: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The table (of the version the round trip starts and ends at).
    public var table: String
    /// The row's entity (its discriminator in an inheritance hierarchy); nil for a join table.
    public var entity: String?
    /// The column, nil when the whole row is missing or new.
    public var column: String?
    /// The model element the column stores, such as `Recipe.name`.
    public var attribute: String?
    /// The row's primary key: `17`, or `3,8` for a join table.
    public var row: String
    /// The value before (JSON), or the whole row when it is missing afterwards; nil for a new row.
    public var before: String?
    /// The value after (JSON), or the whole row when it is new; nil for a missing row.
    public var after: String?

    public var description: String {
        let what = entity.map { "\($0) (table \(table))" } ?? "table \(table)"
        guard let column else {
            if let before { return "\(what) row \(row) did not come back: \(before)" }
            return "\(what) row \(row) was not there before: \(after ?? "?")"
        }
        let name = attribute.map { "\($0) (column \(column))" } ?? "column \(column)"
        return "\(what) row \(row): \(name) was \(before ?? "absent"), came back as \(after ?? "absent")"
    }
}
