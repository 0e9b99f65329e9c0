extension ModelValidator {
    /// Maps the model to tables and checks the SQL names that result: no two tables, no two columns
    /// of a table, and no two relations of the schema (tables, indexes, unique and primary-key
    /// constraints) share a name, and no table or column name given by the model exceeds 63 bytes.
    mutating func checkSQLNames() {
        let schema = RelationalMapper(graph: graph).schema()
        checkTableNames(schema)
        for table in schema.tables { checkColumnNames(table) }
        checkRelationNames(schema)
    }

    private mutating func checkTableNames(_ schema: RelationalSchema) {
        var owners: [String: Table.Origin] = [:]
        for table in schema.tables.sorted(by: { origin($0.origin) < origin($1.origin) }) {
            if case .entity = table.origin, table.name.utf8.count > SQLName.maximumLength {
                report(location(of: table.origin), "table name \"\(table.name)\" of \(describe(table.origin)) is "
                    + "\(table.name.utf8.count) bytes long; PostgreSQL allows at most \(SQLName.maximumLength).")
            }
            guard let other = owners[table.name] else {
                owners[table.name] = table.origin
                continue
            }
            let key = Self.clashKey("table", name(of: other), name(of: table.origin))
            guard !reportedClashes.contains(key) else { continue }
            reportedClashes.insert(key)
            report(location(of: table.origin), "\(describe(table.origin)) maps to table \"\(table.name)\", "
                + "which \(describe(other)) also uses; rename one of them or set table:.")
        }
    }

    private mutating func checkColumnNames(_ table: Table) {
        var owners: [String: Column.Origin] = [:]
        for column in table.columns {
            if column.name.utf8.count > SQLName.maximumLength {
                report(location(of: column.origin), "column name \"\(column.name)\" of \(describe(column.origin)) is "
                    + "\(column.name.utf8.count) bytes long; PostgreSQL allows at most \(SQLName.maximumLength).")
            }
            guard let other = owners[column.name] else {
                owners[column.name] = column.origin
                continue
            }
            // Clashes with `id` and `entity` are reported as reserved names.
            guard other != .primaryKey, other != .discriminator else { continue }
            let key = Self.clashKey("property", describe(other), describe(column.origin))
            guard !reportedClashes.contains(key) else { continue }
            reportedClashes.insert(key)
            report(location(of: column.origin), "\(describe(column.origin)) maps to column \"\(column.name)\" of table "
                + "\"\(table.name)\", which \(describe(other)) also uses; rename one of them or set column:.")
        }
    }

    private mutating func checkRelationNames(_ schema: RelationalSchema) {
        var owners: [String: String] = [:]
        var tables: [Table] = []
        // Of two tables with one name (reported already), only the first is checked further.
        for table in schema.tables where owners[table.name] == nil {
            owners[table.name] = "table \(table.name)"
            tables.append(table)
        }
        for table in tables {
            let relations = [(table.primaryKey.name, "primary key")]
                + table.uniqueConstraints.map { ($0.name, "unique constraint") }
                + table.indexes.map { ($0.name, "index") }
            for (name, kind) in relations {
                let this = "\(kind) \(name) of table \(table.name)"
                if let other = owners[name] {
                    report(location(of: table.origin), "the \(this) has the same name as the \(other); PostgreSQL needs "
                        + "tables and indexes in a schema to have distinct names; set table: or column: to tell them apart.")
                } else {
                    owners[name] = this
                }
            }
        }
    }

    // MARK: Describing origins

    private func origin(_ origin: Table.Origin) -> (Int, String) {
        (location(of: origin)?.line ?? 0, name(of: origin))
    }

    private func name(of origin: Table.Origin) -> String {
        switch origin {
        case .entity(let entity): entity
        case .joinTable(let entity, let relationship): "\(entity).\(relationship)"
        }
    }

    private func describe(_ origin: Table.Origin) -> String {
        switch origin {
        case .entity(let entity): "entity \(entity)"
        case .joinTable(let entity, let relationship): "the join table of relationship \(entity).\(relationship)"
        }
    }

    private func describe(_ origin: Column.Origin) -> String {
        switch origin {
        case .primaryKey: "the primary key"
        case .discriminator: "the discriminator"
        case .attribute(let entity, let attribute): "attribute \(entity).\(attribute)"
        case .relationship(let entity, let relationship): "relationship \(entity).\(relationship)"
        case .joinSource(let entity, let relationship), .joinDestination(let entity, let relationship):
            "the join table of relationship \(entity).\(relationship)"
        }
    }

    private func location(of origin: Table.Origin) -> SourceLocation? {
        switch origin {
        case .entity(let entity): graph.byName[entity]?.location
        case .joinTable(let entity, let relationship): graph.byName[entity]?.relationship(named: relationship)?.location
        }
    }

    private func location(of origin: Column.Origin) -> SourceLocation? {
        switch origin {
        case .primaryKey, .discriminator: nil
        case .attribute(let entity, let attribute): graph.byName[entity]?.attribute(named: attribute)?.location
        case .relationship(let entity, let relationship), .joinSource(let entity, let relationship),
             .joinDestination(let entity, let relationship):
            graph.byName[entity]?.relationship(named: relationship)?.location
        }
    }
}
