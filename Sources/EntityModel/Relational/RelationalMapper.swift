import TypedSQL

/// Maps the entities of one version to tables, following the rules in `docs/ModelFormat.md`.
///
/// It works on an ``EntityGraph`` and tolerates a broken model (it skips relationships to missing
/// entities and treats an invalid inverse as none), so that validation can check SQL-name
/// collisions even when other mistakes exist.
struct RelationalMapper {
    let graph: EntityGraph

    /// The schema: one table per root entity, plus one per join table.
    func schema() -> RelationalSchema {
        var tables = graph.roots.map(entityTable)
        for entity in graph.entities {
            for relationship in entity.relationships {
                if let joinTable = joinTable(for: relationship, declaredBy: entity.name) {
                    tables.append(joinTable)
                }
            }
        }
        return RelationalSchema(tables: tables)
    }

    /// The table of a root entity's name.
    func tableName(ofRoot root: String) -> String {
        graph.byName[root].map { $0.tableOverride ?? $0.name.snakeCased } ?? root.snakeCased
    }

    /// The table that stores `entity`'s rows.
    func tableName(of entity: String) -> String {
        tableName(ofRoot: graph.root(of: entity))
    }

    // MARK: Entity tables

    private func entityTable(_ root: Entity) -> Table {
        let table = tableName(ofRoot: root.name)
        let hierarchy = graph.subtree(of: root.name)
        let hasInheritance = hierarchy.count > 1
        var builder = TableBuilder(name: table)
        builder.columns += keyColumns(of: root)
        if hasInheritance {
            builder.columns.append(Column(
                name: SQLName.discriminatorColumn, type: .text, isNullable: false,
                defaultValue: root.isAbstract ? nil : .string(root.name), origin: .discriminator
            ))
            builder.checks.append(CheckConstraint(
                name: SQLName.derived([table, SQLName.discriminatorColumn], suffix: "check"),
                condition: .isOneOf(column: SQLName.discriminatorColumn, values: graph.concreteEntities(inSubtreeOf: root.name))
            ))
        }
        for name in hierarchy {
            guard let entity = graph.byName[name] else { continue }
            let isSubentity = name != root.name
            let requiredFor = isSubentity ? graph.concreteEntities(inSubtreeOf: name) : []
            for attribute in entity.attributes {
                addAttribute(attribute, of: name, isSubentity: isSubentity, requiredFor: requiredFor, to: &builder)
            }
            for relationship in entity.relationships where holdsForeignKey(relationship, declaredBy: name) {
                addForeignKey(relationship, of: name, isSubentity: isSubentity, requiredFor: requiredFor, to: &builder)
            }
        }
        for name in hierarchy {
            guard let entity = graph.byName[name] else { continue }
            addConstraints(of: entity, to: &builder)
        }
        builder.primaryKeyColumns = primaryKeyColumns(of: root)
        return builder.build(origin: .entity(root.name))
    }

    private func addAttribute(
        _ attribute: Attribute, of entity: String, isSubentity: Bool, requiredFor: [String], to builder: inout TableBuilder
    ) {
        let column = attribute.columnName
        builder.columns.append(Column(
            name: column, type: attribute.sqlType, isNullable: attribute.isOptional || isSubentity,
            defaultValue: attribute.defaultValue, origin: .attribute(entity: entity, attribute: attribute.name)
        ))
        if isSubentity && !attribute.isOptional { builder.requireColumn(column, forEntities: requiredFor) }
        if let check = attribute.check {
            builder.checks.append(CheckConstraint(
                name: builder.freeName(SQLName.derived([builder.name, column], suffix: "check")), condition: .expression(check, columns: [column])
            ))
        }
        if attribute.isUnique {
            builder.uniques.append(UniqueConstraint(name: SQLName.derived([builder.name, column], suffix: "key"), columns: [column]))
        } else if attribute.isIndexed {
            builder.indexes.append(Index(name: SQLName.derived([builder.name, column], suffix: "idx"), columns: [column]))
        }
    }

    private func addForeignKey(
        _ relationship: Relationship, of entity: String, isSubentity: Bool, requiredFor: [String], to builder: inout TableBuilder
    ) {
        let column = relationship.foreignKeyColumnName
        let target = foreignKeyTarget(of: relationship.destination)
        builder.columns.append(Column(
            name: column, type: target.type, isNullable: relationship.isOptional || isSubentity,
            origin: .relationship(entity: entity, relationship: relationship.name)
        ))
        if isSubentity && !relationship.isOptional { builder.requireColumn(column, forEntities: requiredFor) }
        let inverse = graph.validInverse(of: relationship, declaredBy: entity)
        // A required to-one cannot be cleared: where its inverse's rule is nullify (the default),
        // the destination's deletion is refused while rows refer to it, as Core Data refuses to
        // save it (NO ACTION; SET NULL would fail on the NOT NULL column, 23502).
        let rule = inverse?.deleteRule.referentialAction ?? (relationship.isOptional ? .setNull : .noAction)
        let onDelete: ReferentialAction = rule == .setNull && !relationship.isOptional ? .noAction : rule
        builder.foreignKeys.append(ForeignKey(
            name: SQLName.derived([builder.name, column], suffix: "fkey"), columns: [column],
            referencedTable: tableName(of: relationship.destination),
            referencedColumns: [target.column], onDelete: onDelete,
            onUpdate: relationship.onUpdate?.referentialAction, isDeferred: relationship.isDeferred
        ))
        if let inverse, !inverse.isToMany {
            builder.uniques.append(UniqueConstraint(name: SQLName.derived([builder.name, column], suffix: "key"), columns: [column]))
        } else if relationship.isIndexed {
            builder.indexes.append(Index(name: SQLName.derived([builder.name, column], suffix: "idx"), columns: [column]))
        }
    }

    /// An entity's own `uniques:` and `checks:`: a `UNIQUE` constraint over the columns of each
    /// group of properties (`<table>_<columns>_key`, skipped where a property is missing), a `CHECK`
    /// for each condition (`<table>_check`, `<table>_check1`, … as PostgreSQL names them).
    private func addConstraints(of entity: Entity, to builder: inout TableBuilder) {
        let lineage = graph.ancestors(of: entity.name).compactMap { graph.byName[$0] } + [entity]
        func column(of property: String) -> String? {
            for owner in lineage {
                if let attribute = owner.attribute(named: property) { return attribute.columnName }
                if let relationship = owner.relationships.first(where: { $0.name == property }),
                   holdsForeignKey(relationship, declaredBy: owner.name) { return relationship.foreignKeyColumnName }
            }
            return nil
        }
        for group in entity.uniques {
            let columns = group.compactMap(column(of:))
            guard columns.count == group.count else { continue }
            builder.uniques.append(UniqueConstraint(name: builder.freeName(SQLName.derived([builder.name] + columns, suffix: "key")), columns: columns))
        }
        for index in entity.indexes {
            var elements: [String] = [], columns: [String] = [], isPlain = true
            for key in index.keys {
                let words = key.split(separator: " ", maxSplits: 1).map(String.init)
                if let name = column(of: words[0]) {
                    elements.append(PostgreSQLQuoting().quoteIdentifier(name) + (words.count > 1 ? " " + words[1] : ""))
                    columns.append(name)
                    isPlain = isPlain && words.count == 1
                } else {
                    elements.append(key)
                    columns += builder.columns.map(\.name).filter { SQLName.mentions(key, column: $0) && !columns.contains($0) }
                    isPlain = false
                }
            }
            builder.indexes.append(Index(
                name: builder.freeName(SQLName.derived([builder.name] + (isPlain ? columns : columns.prefix(1) + ["expr"]), suffix: index.isUnique ? "key" : "idx")),
                columns: columns, elements: isPlain ? nil : elements, isUnique: index.isUnique, method: index.method,
                predicate: index.predicate
            ))
        }
        for check in entity.checks {
            let read = builder.columns.map(\.name).filter { SQLName.mentions(check, column: $0) }
            builder.checks.append(CheckConstraint(name: builder.freeName(SQLName.derived([builder.name], suffix: "check")),
                                                  condition: .expression(check, columns: read)))
        }
    }

    // MARK: Relationship storage

    /// Whether `relationship` (declared by `entity`) is stored as a foreign-key column in `entity`'s
    /// table: every to-one, except in a one-to-one pair the side that sorts second.
    func holdsForeignKey(_ relationship: Relationship, declaredBy entity: String) -> Bool {
        guard !relationship.isToMany, graph.byName[relationship.destination] != nil else { return false }
        guard let inverse = graph.validInverse(of: relationship, declaredBy: entity), !inverse.isToMany else { return true }
        return (entity, relationship.name) <= (relationship.destination, inverse.name)
    }

    /// Whether `relationship` (declared by `entity`) owns a join table: a to-many with no inverse,
    /// or of a pair of inverse to-manys the side that sorts first.
    func ownsJoinTable(_ relationship: Relationship, declaredBy entity: String) -> Bool {
        guard relationship.isToMany, graph.byName[relationship.destination] != nil else { return false }
        guard let inverse = graph.validInverse(of: relationship, declaredBy: entity) else { return true }
        return inverse.isToMany && (entity, relationship.name) <= (relationship.destination, inverse.name)
    }

    /// The name of the join table `relationship` (declared by `entity`) owns: its `joinTable:`, or
    /// `<snake_case entity>_<snake_case relationship>`, e.g. `track_artists`.
    func joinTableName(for relationship: Relationship, declaredBy entity: String) -> String {
        relationship.joinTableOverride ?? SQLName.derived([entity.snakeCased, relationship.name.snakeCased])
    }

    /// The two column names of the join table of `relationship` (declared by `entity`):
    /// `<snake entity>_id` and `<snake destination>_id`; for a relationship from an entity to itself,
    /// the second is `<snake relationship>_id` (or `related_<snake destination>_id` if that clashes too).
    func joinColumnNames(for relationship: Relationship, declaredBy entity: String) -> (source: String, destination: String) {
        if let given = relationship.joinColumnsOverride, given.count == 2 { return (given[0], given[1]) }
        let source = SQLName.derived([entity.snakeCased], suffix: "id")
        var destination = SQLName.derived([relationship.destination.snakeCased], suffix: "id")
        if destination == source { destination = SQLName.derived([relationship.name.snakeCased], suffix: "id") }
        if destination == source { destination = SQLName.derived(["related", relationship.destination.snakeCased], suffix: "id") }
        return (source, destination)
    }

    private func joinTable(for relationship: Relationship, declaredBy entity: String) -> Table? {
        guard ownsJoinTable(relationship, declaredBy: entity) else { return nil }
        let name = joinTableName(for: relationship, declaredBy: entity)
        let (source, destination) = joinColumnNames(for: relationship, declaredBy: entity)
        var builder = TableBuilder(name: name)
        builder.columns = [
            Column(name: source, type: foreignKeyTarget(of: entity).type, isNullable: false,
                   origin: .joinSource(entity: entity, relationship: relationship.name)),
            Column(name: destination, type: foreignKeyTarget(of: relationship.destination).type, isNullable: false,
                   origin: .joinDestination(entity: entity, relationship: relationship.name)),
        ]
        builder.primaryKeyColumns = [source, destination]
        for (column, target) in [(source, entity), (destination, relationship.destination)] {
            builder.foreignKeys.append(ForeignKey(
                name: SQLName.derived([name, column], suffix: "fkey"), columns: [column],
                referencedTable: tableName(of: target), referencedColumns: [foreignKeyTarget(of: target).column],
                onDelete: relationship.joinOnDelete?.referentialAction ?? .cascade, onUpdate: relationship.joinOnUpdate?.referentialAction
            ))
        }
        if relationship.joinKey == .uniqueIndex {
            builder.indexes.append(Index(name: SQLName.derived([name, source, destination], suffix: "key"), columns: [source, destination], isUnique: true))
        }
        if relationship.isIndexed {
            builder.indexes.append(Index(name: SQLName.derived([name, destination], suffix: "idx"), columns: [destination]))
        }
        var table = builder.build(origin: .joinTable(entity: entity, relationship: relationship.name))
        if relationship.joinKey == .uniqueIndex {
            table.primaryKey.name = SQLName.derived([name, source, destination], suffix: "key")
            table.keyIsUniqueIndex = true
        }
        return table
    }
}

/// Collects the parts of a table while the mapper walks an entity hierarchy.
private struct TableBuilder {
    let name: String
    var columns: [Column] = []
    var primaryKeyColumns = [SQLName.primaryKeyColumn]
    var foreignKeys: [ForeignKey] = []
    var uniques: [UniqueConstraint] = []
    var checks: [CheckConstraint] = []
    var indexes: [Index] = []

    init(name: String) { self.name = name }

    /// `name`, or where a constraint or index of the table has it, `name` followed by the first
    /// number that makes it free (`order_check1`), as PostgreSQL names constraints.
    func freeName(_ name: String) -> String {
        let taken = Set(checks.map(\.name) + uniques.map(\.name) + indexes.map(\.name) + foreignKeys.map(\.name))
        guard taken.contains(name) else { return name }
        return (1...).lazy.map { number in
            let numbered = name + String(number)
            return numbered.utf8.count <= SQLName.maximumLength ? numbered : SQLName.derived([name], suffix: String(number))
        }.first { !taken.contains($0) }!
    }

    /// Adds `discriminator NOT IN (entities) OR column IS NOT NULL`.
    mutating func requireColumn(_ column: String, forEntities entities: [String]) {
        guard !entities.isEmpty else { return }
        checks.append(CheckConstraint(
            name: SQLName.derived([name, column], suffix: "check"),
            condition: .requiredForEntities(column: column, discriminator: SQLName.discriminatorColumn, entities: entities)
        ))
    }

    func build(origin: Table.Origin) -> Table {
        Table(
            name: name, origin: origin, columns: columns,
            primaryKey: PrimaryKey(name: SQLName.derived([name], suffix: "pkey"), columns: primaryKeyColumns),
            foreignKeys: foreignKeys, uniqueConstraints: uniques, checkConstraints: checks, indexes: indexes
        )
    }
}
