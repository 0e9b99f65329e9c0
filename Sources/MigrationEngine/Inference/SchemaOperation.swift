import EntityModel
import TypedSQL

/// One in-place change to a tenant's schema, as an inferred step runs it.
///
/// Operations are plain data; ``SchemaOperation/sql(inSchema:quoting:)`` renders them. Catalog-only
/// forms are used wherever PostgreSQL has them: renames, adding a column with a constant default,
/// dropping a column, dropping NOT NULL.
enum SchemaOperation: Sendable, Hashable {
    /// Drops a constraint; `ownsIndex` for a primary key or unique constraint, whose name is its
    /// index's, in the schema's namespace (spelled by the statement's ``TableNaming``), where a
    /// foreign key's or check's name is its table's own.
    case dropConstraint(table: String, name: String, ownsIndex: Bool)
    case dropIndex(name: String)
    case renameTable(from: String, to: String)
    case renameColumn(table: String, from: String, to: String)
    case renameConstraint(table: String, from: String, to: String, ownsIndex: Bool)
    case renameIndex(from: String, to: String)
    /// Creates a table with its columns, primary key, unique and check constraints; its foreign
    /// keys and indexes come as separate operations, after the data moved.
    case createTable(Table)
    case addColumn(table: String, column: Column)
    case alterType(table: String, column: String, to: SQLType)
    case setDefault(table: String, column: String, value: DefaultValue?, type: SQLType)
    /// `UPDATE … SET column = default WHERE column IS NULL`, before SET NOT NULL.
    case backfill(table: String, column: String, value: DefaultValue, type: SQLType)
    case setNullable(table: String, column: String, isNullable: Bool)
    case renameDiscriminatorValue(table: String, from: String, to: String)
    /// Deletes the rows of entities that no longer exist from a hierarchy's table.
    case deleteEntityRows(table: String, entities: [String])
    /// Before those rows go: removes the links that this step moved into new storage (whose
    /// foreign key comes only at the end of the step) and that point at them.
    case dropLinksTo(LinkStorage, column: String, table: String, entities: [String])
    case moveLinks(LinkMove)
    case moveRows(RowMove)
    case dropColumn(table: String, column: String)
    case dropTable(String)
    case addForeignKey(table: String, ForeignKey)
    /// A foreign key that takes the place of one on the same columns and target with another
    /// rule (`ON DELETE`, `ON UPDATE`, deferral): added `NOT VALID`, then validated.
    case replaceForeignKey(table: String, ForeignKey)
    case addUnique(table: String, UniqueConstraint)
    /// `ADD CONSTRAINT … PRIMARY KEY`: on an existing unique index of its columns where there is
    /// one (catalog only; a join table's `joinKey` that was `uniqueIndex`), else on the columns.
    case addPrimaryKey(table: String, name: String, columns: [String], usingIndex: String?)
    case addCheck(table: String, CheckConstraint)
    case createIndex(table: String, Index)
    /// Moves the identity sequence (or the serial's, or the model sequence the key's default draws
    /// from) past the largest id, after rows arrived with explicit ids.
    case resetIdentity(table: String)
    /// Creates, changes or drops an enum type of the model.
    case enumChange(EnumChange)
    /// Creates, changes or drops a sequence the model lists (catalog only).
    case sequenceChange(SequenceChange)
    /// `COMMENT ON TABLE` (column nil) or `COMMENT ON COLUMN`; nil removes the comment.
    case setComment(table: String, column: String?, comment: String?)

    /// Whether the operation reads or writes rows (rather than only the catalog).
    ///
    /// Every case is listed, none by default: a proof by the way back trusts an operation that
    /// does not move data (``WayBackProof``), so a new one must say what it does.
    var movesData: Bool {
        switch self {
        case .backfill, .moveLinks, .moveRows, .renameDiscriminatorValue, .deleteEntityRows, .dropLinksTo, .alterType: return true
        case let .enumChange(change): return change.movesData
        case .setComment, .sequenceChange: return false
        case .dropConstraint, .dropIndex, .renameTable, .renameColumn, .renameConstraint, .renameIndex, .createTable, .addColumn, .setDefault,
             .setNullable, .dropColumn, .dropTable, .addForeignKey, .replaceForeignKey, .addUnique, .addPrimaryKey, .addCheck, .createIndex, .resetIdentity:
            return false
        }
    }

    /// A constraint's name: through the statement's ``TableNaming`` when it is its index's (a
    /// primary key, a unique constraint), as it is otherwise (a foreign key's, a check's, which
    /// clash with nothing outside their table, and which Citus cannot rename on a distributed table).
    static func constraintName(_ name: String, ownsIndex: Bool) -> SQL {
        ownsIndex ? "\(objectName: name)" : "\(id: name)"
    }

    /// The statements of this operation, in order, for any tenant schema.
    var statements: [SQL] {
        switch self {
        case let .dropConstraint(name, constraint, ownsIndex):
            return ["ALTER TABLE \(table: name) DROP CONSTRAINT \(Self.constraintName(constraint, ownsIndex: ownsIndex))"]
        case let .dropIndex(name):
            return ["DROP INDEX \(table: name)"]
        case let .renameTable(from, to):
            return ["ALTER TABLE \(table: from) RENAME TO \(objectName: to)"]
        case let .renameColumn(name, from, to):
            return ["ALTER TABLE \(table: name) RENAME COLUMN \(id: from) TO \(id: to)"]
        case let .renameConstraint(_, from, to, true):
            // Renaming the index renames the primary key or unique constraint it carries; Citus,
            // which refuses `RENAME CONSTRAINT` on a distributed table (0A000), allows it.
            return ["ALTER INDEX \(table: from) RENAME TO \(objectName: to)"]
        case let .renameConstraint(name, from, to, false):
            return ["ALTER TABLE \(table: name) RENAME CONSTRAINT \(id: from) TO \(id: to)"]
        case let .renameIndex(from, to):
            return ["ALTER INDEX \(table: from) RENAME TO \(objectName: to)"]
        case let .createTable(definition):
            var bare = definition
            bare.foreignKeys = []
            bare.indexes = []
            return [bare.creation] + bare.keySequenceSettings + bare.commentStatements
        case .addColumn, .alterType, .setNullable, .dropColumn:
            let (name, _, clause) = alterTableClause!
            return ["ALTER TABLE \(table: name) \(clause)"]
        case let .setDefault(name, column, value, type):
            guard let value else { return ["ALTER TABLE \(table: name) ALTER COLUMN \(id: column) DROP DEFAULT"] }
            return ["ALTER TABLE \(table: name) ALTER COLUMN \(id: column) SET DEFAULT \(value.sql(for: type))"]
        case let .backfill(name, column, value, type):
            return ["UPDATE \(table: name) SET \(id: column) = \(value.sql(for: type)) WHERE \(id: column) IS NULL"]
        case let .renameDiscriminatorValue(name, from, to):
            return ["UPDATE \(table: name) SET \(id: "entity") = \(literal: to) WHERE \(id: "entity") = \(literal: from)"]
        case let .deleteEntityRows(name, entities):
            return ["DELETE FROM \(table: name) WHERE \(id: "entity") IN (\(literals: entities))"]
        case let .dropLinksTo(storage, column, name, entities):
            let doomed: SQL = "SELECT id FROM \(table: name) WHERE \(id: "entity") IN (\(literals: entities))"
            switch storage {
            case let .joinTable(join, _, _):
                return ["DELETE FROM \(table: join) WHERE \(id: column) IN (\(doomed))"]
            case let .foreignKey(holder, _):
                return ["UPDATE \(table: holder) SET \(id: column) = NULL WHERE \(id: column) IN (\(doomed))"]
            }
        case let .moveLinks(move):
            return move.statements
        case let .moveRows(move):
            return move.statements
        case let .dropTable(name):
            return ["DROP TABLE \(table: name)"]
        case let .addForeignKey(name, foreignKey):
            return [foreignKey.addition(toTable: name)]
        case let .replaceForeignKey(name, foreignKey):
            // Its rows held the old key: added without reading them, then validated.
            return [foreignKey.addition(toTable: name) + " NOT VALID", "ALTER TABLE \(table: name) VALIDATE CONSTRAINT \(id: foreignKey.name)"]
        case let .addUnique(name, unique):
            return ["ALTER TABLE \(table: name) ADD CONSTRAINT \(objectName: unique.name) UNIQUE (\(ids: unique.columns))"]
        case let .addPrimaryKey(name, constraint, _, index?):
            return ["ALTER TABLE \(table: name) ADD CONSTRAINT \(objectName: constraint) PRIMARY KEY USING INDEX \(objectName: index)"]
        case let .addPrimaryKey(name, constraint, columns, nil):
            return ["ALTER TABLE \(table: name) ADD CONSTRAINT \(objectName: constraint) PRIMARY KEY (\(ids: columns))"]
        case let .addCheck(name, check):
            // Added without reading the rows, then validated: VALIDATE takes a lock that lets writes go on.
            return ["ALTER TABLE \(table: name) ADD CONSTRAINT \(id: check.name) CHECK (\(check.condition.sql)) NOT VALID",
                    "ALTER TABLE \(table: name) VALIDATE CONSTRAINT \(id: check.name)"]
        case let .createIndex(name, index):
            return [index.creation(onTable: name)]
        case let .resetIdentity(name):
            // Never below the sequence's own minimum: Citus gives a distributed table's identity a
            // range per node (from its group id × 2^48), and `setval` below it fails (22003).
            // A key whose default draws from a sequence of the model (`sequences:`, which no column
            // owns) is moved past the rows too, but never back: other tables may draw from it.
            let owned: SQL = "pg_catalog.pg_get_serial_sequence(\(qualifiedNameLiteral: name), 'id')::pg_catalog.regclass"
            let drawn: SQL = "(SELECT d.refobjid FROM pg_catalog.pg_attrdef AS ad "
                + "JOIN pg_catalog.pg_attribute AS a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum AND a.attname = 'id' "
                + "JOIN pg_catalog.pg_depend AS d ON d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass AND d.objid = ad.oid "
                + "AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass "
                + "JOIN pg_catalog.pg_class AS s ON s.oid = d.refobjid AND s.relkind = 'S' "
                + "WHERE ad.adrelid = pg_catalog.to_regclass(\(qualifiedNameLiteral: name)) LIMIT 1)"
            return ["SELECT pg_catalog.setval(q.seqrelid, GREATEST(coalesce((SELECT pg_catalog.max(id) FROM \(table: name)), 0) + 1, q.seqmin, "
                + "CASE WHEN o.owned IS NULL THEN coalesce(pg_catalog.pg_sequence_last_value(q.seqrelid) + q.seqincrement, q.seqmin) ELSE q.seqmin END), false) "
                + "FROM (SELECT \(owned) AS owned) AS o JOIN pg_catalog.pg_sequence AS q ON q.seqrelid = coalesce(o.owned, \(drawn))"]
        case let .enumChange(change):
            return change.statements
        case let .sequenceChange(change):
            return change.statements
        case let .setComment(name, column, comment):
            return [Table.comment(table: name, column: column, comment)]
        }
    }

    /// The operation as one clause of `ALTER TABLE`, for the kinds that can share the statement
    /// with others on the same table (see `mergingAlterTables`): its table, the one column it
    /// touches, and the clause.
    var alterTableClause: (table: String, column: String, clause: SQL)? {
        switch self {
        case let .addColumn(name, column):
            return (name, column.name, "ADD COLUMN \(column.definition)")
        case let .alterType(name, column, type):
            // A value becomes an enum's through its text (no cast leads from another enum, or from a
            // number). A shorter varchar takes the value by assignment, which fails on a value that
            // does not fit, where an explicit cast would cut it (SQLType+Length.swift).
            let cast: SQL = type.enumName != nil ? "::text::\(type.sql)" : type.characterLength != nil ? "" : "::\(type.sql)"
            return (name, column, "ALTER COLUMN \(id: column) TYPE \(type.sql) USING \(id: column)\(cast)")
        case let .setNullable(name, column, isNullable):
            return (name, column, "ALTER COLUMN \(id: column) \(raw: isNullable ? "DROP" : "SET") NOT NULL")
        case let .dropColumn(name, column):
            return (name, column, "DROP COLUMN \(id: column)")
        default:
            return nil
        }
    }

    /// ``statements`` for `schema`.
    func sql(inSchema schema: String, quoting q: some SQLQuoting) -> [String] {
        statements.map { $0.text(schema: schema, quoting: q) }
    }
}

/// Where a relationship's links are stored.
enum LinkStorage: Sendable, Hashable {
    /// A foreign key column: each row of `table` links to the row its `column` names.
    case foreignKey(table: String, column: String)
    /// A join table: each row links its `first` column's row to its `second` column's row.
    case joinTable(table: String, first: String, second: String)

    /// `SELECT x, y` of every link, x on the storage's first side.
    var selectLinks: SQL {
        switch self {
        case let .foreignKey(table, column):
            return "SELECT id AS x, \(id: column) AS y FROM \(table: table) WHERE \(id: column) IS NOT NULL"
        case let .joinTable(table, first, second):
            return "SELECT \(id: first) AS x, \(id: second) AS y FROM \(table: table)"
        }
    }
}

/// Moves a relationship's links from its old storage to its new one (to-one ↔ to-many,
/// to-many ↔ many-to-many), so no link is lost where the new shape can hold it.
struct LinkMove: Sendable, Hashable {
    var from: LinkStorage
    var to: LinkStorage
    /// The new storage's first side is the old storage's second side.
    var swapped: Bool

    var statements: [SQL] {
        let (x, y) = swapped ? ("y", "x") : ("x", "y")
        let links: SQL = "SELECT \(raw: x) AS x, \(raw: y) AS y FROM (\(from.selectLinks)) AS old_links"
        switch to {
        case let .foreignKey(table, column):
            // A to-one holds one link per row: keep the lowest, deterministically.
            return ["UPDATE \(table: table) AS t SET \(id: column) = l.y "
                + "FROM (SELECT DISTINCT ON (x) x, y FROM (\(links)) AS all_links ORDER BY x, y) AS l WHERE t.id = l.x"]
        case let .joinTable(table, first, second):
            return ["INSERT INTO \(table: table) (\(id: first), \(id: second)) "
                + "SELECT DISTINCT x, y FROM (\(links)) AS l ON CONFLICT DO NOTHING"]
        }
    }
}

/// Moves the rows of some entities from one table to another when inheritance changes: out of a
/// hierarchy's table (ids kept), or into one (ids offset past the target's, and references updated).
struct RowMove: Sendable, Hashable {
    var fromTable: String
    var toTable: String
    /// Source column → destination column.
    var columns: [ColumnPair]
    /// The discriminator values to move (nil: every row of the source table).
    var entities: [String]?
    /// The destination's discriminator value for each moved entity (old name → new name); nil when
    /// the destination has no discriminator.
    var discriminator: [String: String]?
    /// Whether ids must be offset (merging into a table that has rows of its own).
    var offsetsIDs: Bool
    /// Foreign key columns (table, column) and join columns that point at moved rows and must follow the offset.
    var references: [ColumnRef]

    struct ColumnPair: Sendable, Hashable { var source: String, destination: String }
    struct ColumnRef: Sendable, Hashable { var table: String, column: String }

    var statements: [SQL] {
        let setting: SQL = "\(literal: "tenant_migrate.offset_\(fromTable)")"
        let offset: SQL = offsetsIDs ? " + pg_catalog.current_setting(\(setting))::bigint" : ""
        var statements: [SQL] = []
        if offsetsIDs {
            statements.append("SELECT pg_catalog.set_config(\(setting), (SELECT coalesce(pg_catalog.max(id), 0) FROM \(table: toTable))::text, true)")
        }
        var destinationColumns = ["id"]
        var sourceExpressions: [SQL] = ["id\(offset)"]
        if let discriminator {
            destinationColumns.append("entity")
            if entities == nil, discriminator.count == 1, let only = discriminator.values.first {
                sourceExpressions.append("\(literal: only)")
            } else {
                let cases: [SQL] = discriminator.sorted { $0.key < $1.key }.map { "WHEN \(literal: $0.key) THEN \(literal: $0.value)" }
                sourceExpressions.append("CASE \(id: "entity") \(cases, joinedBy: " ") END")
            }
        }
        for pair in columns {
            destinationColumns.append(pair.destination)
            sourceExpressions.append("\(id: pair.source)")
        }
        let filter: SQL = entities.map { " WHERE \(id: "entity") IN (\(literals: $0))" } ?? ""
        // The rows keep their ids, which a key GENERATED ALWAYS refuses without the clause.
        statements.append("INSERT INTO \(table: toTable) (\(ids: destinationColumns)) OVERRIDING SYSTEM VALUE "
            + "SELECT \(sourceExpressions, joinedBy: ", ") FROM \(table: fromTable)\(filter)")
        for reference in references where offsetsIDs {
            statements.append("UPDATE \(table: reference.table) SET \(id: reference.column) = "
                + "\(id: reference.column)\(offset) WHERE \(id: reference.column) IS NOT NULL")
        }
        if entities != nil {
            statements.append("DELETE FROM \(table: fromTable)\(filter)")
        }
        return statements
    }
}
