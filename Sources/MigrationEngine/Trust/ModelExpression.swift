import EntityModel

/// One SQL expression a model version puts into its DDL, which PostgreSQL resolves by name and
/// runs with the rights of whoever writes the rows: a `defaultExpression`, a check (`check:`,
/// `checks:`), a key of an entity's index, or the condition of a partial index.
struct ModelExpression: Sendable, Hashable {
    /// What it is.
    enum Kind: Sendable, Hashable {
        /// The default of a column.
        case columnDefault(column: String)
        /// A check constraint's condition.
        case check(constraint: String)
        /// The key elements of an index, one of them (a column, or an expression with what may
        /// follow it: an operator class, `COLLATE`, `DESC`).
        case indexKey(index: String, element: String)
        /// The condition of a partial index.
        case indexPredicate(index: String)
    }

    /// The table (the model's name for it).
    let table: String
    let kind: Kind
    /// The SQL as the model writes it.
    let sql: String
    /// Where the model says it, for messages: `Shop/v2.yaml:7: the defaultExpression of Item.tag`.
    let place: String

    /// The expressions of `version`'s tables, in table order.
    static func all(in version: ModelVersion) -> [ModelExpression] {
        version.relationalSchema().tables.flatMap { table in expressions(of: table, in: version) }
    }

    private static func expressions(of table: Table, in version: ModelVersion) -> [ModelExpression] {
        let owner = ModelPlace(table: table, version: version)
        var found: [ModelExpression] = []
        for column in table.columns {
            guard case .expression(let sql)? = column.defaultValue else { continue }
            found.append(ModelExpression(table: table.name, kind: .columnDefault(column: column.name), sql: sql,
                                         place: owner.column(column, "the defaultExpression of")))
        }
        for check in table.checkConstraints {
            guard case .expression(let sql, _) = check.condition else { continue }
            found.append(ModelExpression(table: table.name, kind: .check(constraint: check.name), sql: sql,
                                         place: owner.table("check \(check.name) of")))
        }
        for index in table.indexes {
            for element in index.elements ?? [] {
                found.append(ModelExpression(table: table.name, kind: .indexKey(index: index.name, element: element), sql: element,
                                             place: owner.table("index \(index.name) of")))
            }
            if let predicate = index.predicate {
                found.append(ModelExpression(table: table.name, kind: .indexPredicate(index: index.name), sql: predicate,
                                             place: owner.table("the where: of index \(index.name) of")))
            }
        }
        return found
    }
}

/// Names a table's entity, or one of its columns' attributes, where the model file says it.
struct ModelPlace {
    let table: Table
    let version: ModelVersion

    /// `Shop/v2.yaml:3: <what> Item` (the entity whose table it is, or the join table's relationship).
    func table(_ what: String) -> String {
        switch table.origin {
        case .entity(let entity):
            return prefix(version.entity(named: entity)?.location) + "\(what) \(entity)"
        case .joinTable(let entity, let relationship):
            return prefix(version.entity(named: entity)?.location) + "\(what) the join table of \(entity).\(relationship)"
        }
    }

    /// `Shop/v2.yaml:9: <what> Item.tag` (the attribute a column stores), or the table's place.
    func column(_ column: Column, _ what: String) -> String {
        guard case .attribute(let entity, let attribute) = column.origin else { return table(what) + " (column \(column.name))" }
        let location = version.entity(named: entity)?.attribute(named: attribute)?.location ?? version.entity(named: entity)?.location
        return prefix(location) + "\(what) \(entity).\(attribute)"
    }

    private func prefix(_ location: SourceLocation?) -> String {
        "\(location.map { "\($0)" } ?? "version \(version.name)"): "
    }
}
