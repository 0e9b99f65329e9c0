import EntityModel
import LibPQ
import TypedSQL

/// Puts a small table's columns back in model order after a rollback re-added some of them at the
/// end (PostgreSQL appends what it adds), so a rolled-back tenant reads like a fresh one
/// (`SELECT *`, positional decoding). See docs/Archive.md, "Column order after a rollback".
///
/// From the first column out of place on, the model's columns are re-created at the end in model
/// order: new columns of the same types, filled by one `UPDATE` of the table, the old ones dropped
/// (which drops the indexes and constraints on them), the new ones renamed, then their defaults,
/// NOT NULL, comments, the primary key (of a natural or composite key whose columns moved), constraints and
/// indexes as the model has them, under the names the tenant had for them (an adopted tenant's own,
/// ``AdoptedNames``) and with the comments it had on them, and the rights the columns had of their
/// own; all in one round trip. Only tables of at most
/// ``smallTableRows`` rows: a larger table keeps its order (`verify --strict` lists it). An object
/// of the app's that depends on a column (a view) keeps the order too: the statements run in a
/// savepoint that is rolled back.
struct ColumnOrder {
    /// The most rows a table may have for its columns to be put back in order (one rewrite of
    /// the table inside the tenant's transaction).
    static let smallTableRows = 10_000

    let table: Table
    let schema: String
    let connection: Connection

    /// Puts the columns back in model order if they are not and the table is small; returns
    /// whether it did.
    @discardableResult
    func restore() throws -> Bool {
        let qualified: SQL = "\(table: table.name)"
        let live = try connection.execute(
            """
            SELECT a.attname::text FROM pg_catalog.pg_attribute a WHERE a.attrelid = pg_catalog.to_regclass(\(qualifiedNameLiteral: table.name)) \
            AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
            """, schema: schema).map { try $0.decode(String.self, at: 0) }
        let model = table.columns.map(\.name).filter(live.contains)
        let actual = live.filter(model.contains)
        guard actual != model, let first = model.indices.first(where: { model[$0] != actual[$0] }) else { return false }
        let rows = try connection.execute("SELECT pg_catalog.count(*) FROM (SELECT 1 FROM \(qualified) LIMIT \(int: Self.smallTableRows + 1)) AS t", schema: schema).first!.decode(Int64.self, at: 0)
        guard rows <= Self.smallTableRows else { return false }
        let moved = table.columns.filter { model[first...].contains($0.name) && $0.origin != .primaryKey }
        let names = Set(moved.map { $0.name })
        // Read before the drops: the tenant's own names of what is made again, and the comments on it.
        let own = try ownNames()
        func named<Object>(_ object: Object, _ name: WritableKeyPath<Object, String>) -> Object {
            var object = object
            object[keyPath: name] = own[object[keyPath: name]] ?? object[keyPath: name]
            return object
        }
        let oid: SQL = "pg_catalog.to_regclass(\(qualifiedNameLiteral: table.name))"
        var statements: [SQL] = []
        for (index, column) in moved.enumerated() {
            statements.append("ALTER TABLE \(qualified) ADD COLUMN \(id: "_tm_reorder_\(index)") \(type: column.type)")
        }
        statements.append("UPDATE \(qualified) SET \(moved.enumerated().map { "\(id: "_tm_reorder_\($0.offset)") = \(id: $0.element.name)" as SQL }, joinedBy: ", ")")
        for (index, column) in moved.enumerated() {
            statements.append("ALTER TABLE \(qualified) DROP COLUMN \(id: column.name)")
            statements.append("ALTER TABLE \(qualified) RENAME COLUMN \(id: "_tm_reorder_\(index)") TO \(id: column.name)")
            var operations: [SchemaOperation] = []
            if column.defaultValue != nil { operations.append(.setDefault(table: table.name, column: column.name, value: column.defaultValue, type: column.type)) }
            if !column.isNullable { operations.append(.setNullable(table: table.name, column: column.name, isNullable: false)) }
            // Dropping the column dropped its comment (an adopted tenant's customer.email lost "Where receipts go").
            if let comment = column.comment { operations.append(.setComment(table: table.name, column: column.name, comment: comment)) }
            statements += operations.flatMap(\.statements)
        }
        if !names.isDisjoint(with: table.primaryKey.columns) {
            // A natural or composite key's columns moved: dropping them dropped the key.
            statements.append("ALTER TABLE \(qualified) ADD CONSTRAINT \(objectName: own[table.primaryKey.name] ?? table.primaryKey.name) PRIMARY KEY (\(ids: table.primaryKey.columns))")
        }
        var constraints: [SchemaOperation] = []
        constraints += table.uniqueConstraints.filter { !names.isDisjoint(with: $0.columns) }.map { .addUnique(table: table.name, named($0, \.name)) }
        constraints += table.checkConstraints.filter { !names.isDisjoint(with: $0.columns) }.map { .addCheck(table: table.name, named($0, \.name)) }
        constraints += table.foreignKeys.filter { !names.isDisjoint(with: $0.columns) }.map { .addForeignKey(table: table.name, named($0, \.name)) }
        constraints += table.indexes.filter { !names.isDisjoint(with: $0.columns) }.map { .createIndex(table: table.name, named($0, \.name)) }
        statements += constraints.flatMap(\.statements)
        // Dropping an index or constraint dropped its comment (COMMENT ON CONSTRAINT … ON …, which
        // the model does not carry); what is made again under its name gets it back.
        let remade = constraints.compactMap(\.madeName) + (names.isDisjoint(with: table.primaryKey.columns) ? [] : [own[table.primaryKey.name] ?? table.primaryKey.name])
        statements += try ObjectComments.statements(for: [(oid, oid)], objects: remade, schema: schema, on: connection)
        // Dropping a column dropped its rights too (GRANT SELECT (email) …): the re-created one gets them back.
        statements += try ColumnRights.grants(from: oid, to: oid, columns: moved.map(\.name), schema: schema, on: connection)
        do {
            try connection.savepoint { connection in _ = try connection.pipeline(statements, schema: schema) }
            return true
        } catch let error as PQError {
            connection.logger.notice("columns of \(table.name) stay out of model order: \(error)")
            return false
        }
    }

    /// The tenant's own name of each of the table's key, constraints and indexes that does not
    /// have the name the model derives (an adopted tenant's, docs/Import.md), by derived name: one
    /// catalog query, paired by definition as ``AdoptedNames`` pairs them. None in a shadow built
    /// inside the tenant's schema (Citus), whose objects the run made from the model under a
    /// naming of its own.
    private func ownNames() throws -> [String: String] {
        guard TableNaming.current(for: schema) == .model else { return [:] }
        let catalog = try connection.execute(AdoptedNames.query(tables: [table.name]), [schema]).map { row in
            (name: try row.decode(String.self, column: "name"), definition: try AdoptedNames.Definition(row))
        }
        return AdoptedNames.pair(AdoptedNames.Definition.all(of: table), catalog).filter { $0.key != $0.value }
    }
}

extension CheckConstraint {
    /// The columns the check reads.
    var columns: [String] {
        switch condition {
        case let .isOneOf(column, _): return [column]
        case let .requiredForEntities(column, discriminator, _): return [column, discriminator]
        case let .expression(_, columns): return columns
        }
    }
}

extension SchemaOperation {
    /// The name of the index or constraint an `addUnique`, `addCheck`, `addForeignKey` or `createIndex` makes.
    var madeName: String? {
        switch self {
        case let .addUnique(_, unique): unique.name
        case let .addCheck(_, check): check.name
        case let .addForeignKey(_, key): key.name
        case let .createIndex(_, index): index.name
        default: nil
        }
    }
}
