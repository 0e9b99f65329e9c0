/// Checks a model version against every rule in `docs/ModelFormat.md` and reports each mistake.
///
/// Checks that need a sound model (inverses, SQL names) run on whatever is sound, so one pass
/// reports everything.
struct ModelValidator {
    private let declared: [Entity]
    private let graph: EntityGraph
    private let file: String
    private var diagnostics: [ModelDiagnostic] = []
    /// Pairs of properties or entities already reported as clashing, so one clash is reported once.
    private var reportedClashes: Set<String> = []

    init(entities: [Entity], file: String) {
        self.declared = entities
        self.graph = EntityGraph(entities)
        self.file = file
    }

    /// Runs every check and returns the mistakes found.
    func validate() -> [ModelDiagnostic] {
        var validator = self
        validator.checkEntities()
        validator.checkInheritance()
        for entity in validator.graph.entities {
            validator.checkProperties(of: entity)
            for attribute in entity.attributes { validator.checkDefault(of: attribute, in: entity) }
            for relationship in entity.relationships {
                validator.checkRelationship(relationship, of: entity)
                validator.checkJoinTableOptions(relationship, of: entity)
            }
        }
        validator.checkSQLNames()
        var keys = KeyValidator(graph: validator.graph, file: validator.file)
        keys.checkKeys()
        return ModelDiagnostic.sortedForDisplay(validator.diagnostics + keys.diagnostics)
    }

    private mutating func report(_ location: SourceLocation?, _ message: String) {
        diagnostics.append(ModelDiagnostic(at: location, orIn: file, message))
    }

    /// Checks a name a model gives (entity, property, table, column or renaming identifier).
    /// `isColumn` also reserves `id` and `entity` (and names whose snake_case is one of them).
    /// `isSQLName` (a table or column name) lets it start with `_`, but not with `_tm_`.
    /// Returns `false` when it reported a mistake.
    @discardableResult
    private mutating func checkName(_ name: String, what: String, at location: SourceLocation?, isColumn: Bool = false, isSQLName: Bool = false) -> Bool {
        if SQLName.isToolName(name) {
            report(location, "\(what) uses a reserved name: names starting with \"\(SQLName.toolPrefix)\" belong to TenantMigrator.")
            return false
        }
        if isColumn, SQLName.reservedColumns.contains(name) || SQLName.reservedColumns.contains(name.snakeCased) {
            report(location, "\(what) uses a reserved name: TenantMigrator owns the columns \"id\" and \"entity\".")
            return false
        }
        guard isSQLName ? SQLName.isSQLName(name) : SQLName.isIdentifier(name) else {
            report(location, "\(what) is not a valid name: a name starts with a letter\(isSQLName ? " or \"_\"" : "") and has only letters, digits and \"_\".")
            return false
        }
        return true
    }

    // MARK: Entities

    private mutating func checkEntities() {
        var seen: Set<String> = []
        for entity in declared where !seen.insert(entity.name).inserted {
            report(entity.location, "entity \(entity.name) is declared twice.")
        }
        var bySQLName: [String: Entity] = [:]
        for entity in graph.entities.sorted(by: Self.declarationOrder) {
            guard checkName(entity.name, what: "entity name \"\(entity.name)\"", at: entity.location) else { continue }
            if let other = bySQLName[entity.name.snakeCased] {
                report(entity.location, "entity \(entity.name) and entity \(other.name) both map to the SQL name "
                    + "\"\(entity.name.snakeCased)\"; rename one of them.")
                reportedClashes.insert(Self.clashKey("table", other.name, entity.name))
            } else {
                bySQLName[entity.name.snakeCased] = entity
            }
            if let renamed = entity.renamingIdentifier {
                checkName(renamed, what: "renamingIdentifier \"\(renamed)\" of entity \(entity.name)", at: entity.location)
            }
            guard let table = entity.tableOverride else { continue }
            if entity.parent != nil {
                report(entity.location, "entity \(entity.name) has a parent, so its rows live in its root entity's table; "
                    + "table: is allowed only on a root entity.")
            } else {
                checkName(table, what: "table name \"\(table)\" of entity \(entity.name)", at: entity.location, isSQLName: true)
            }
        }
    }

    // MARK: Inheritance

    private mutating func checkInheritance() {
        for entity in graph.entities {
            if let parent = entity.parent, graph.byName[parent] == nil {
                report(entity.location, "entity \(entity.name) has parent \(parent), which does not exist.")
            }
        }
        var inCycle: Set<String> = []
        for cycle in graph.cycles {
            inCycle.formUnion(cycle)
            let first = cycle.compactMap { graph.byName[$0] }.sorted(by: Self.declarationOrder).first
            let path = (cycle + [cycle[0]]).joined(separator: " → ")
            report(first?.location, "entity \(first?.name ?? cycle[0]) is part of an inheritance cycle: \(path).")
        }
        for entity in graph.entities where entity.isAbstract && !inCycle.contains(entity.name) {
            if graph.concreteEntities(inSubtreeOf: entity.name).isEmpty {
                report(entity.location, "entity \(entity.name) is abstract and has no concrete sub-entity, so it can hold no rows.")
            }
        }
    }

    // MARK: Properties

    /// A property of an entity, attribute or relationship, for the checks common to both.
    private struct Property {
        var kind: String
        var name: String
        var declaredBy: String
        var columnOverride: String?
        var renamingIdentifier: String?
        var location: SourceLocation?

        var described: String { "\(kind) \(declaredBy).\(name)" }
    }

    /// Checks the names of `entity`'s own properties, and that none repeats another property's name,
    /// its own or inherited, exactly or after snake_case.
    private mutating func checkProperties(of entity: Entity) {
        for property in properties(of: entity) {
            let what = property.described
            checkName(property.name, what: what, at: property.location, isColumn: true)
            if let column = property.columnOverride {
                checkName(column, what: "column \"\(column)\" of \(what)", at: property.location, isColumn: true, isSQLName: true)
            }
            if let renamed = property.renamingIdentifier {
                checkName(renamed, what: "renamingIdentifier \"\(renamed)\" of \(what)", at: property.location)
            }
        }
        checkDuplicateProperties(of: entity)
        checkUniqueGroups(of: entity)
    }

    /// Each property a `uniques:` group names is an attribute or a to-one stored in the entity's
    /// table (its own or inherited), named once.
    private mutating func checkUniqueGroups(of entity: Entity) {
        let lineage = graph.ancestors(of: entity.name).compactMap { graph.byName[$0] } + [entity]
        for group in entity.uniques {
            for property in group {
                let isStored = lineage.contains { owner in
                    owner.attribute(named: property) != nil || owner.relationships.contains { $0.name == property && !$0.isToMany }
                }
                if !isStored {
                    report(entity.location, "entity \(entity.name) has a unique group naming \(property), which is not an attribute or to-one of \(entity.name).")
                }
            }
            if Set(group).count != group.count {
                report(entity.location, "entity \(entity.name) has a unique group naming a property twice: \(group.joined(separator: ", ")).")
            }
        }
    }

    private mutating func checkDuplicateProperties(of entity: Entity) {
        let inherited = graph.ancestors(of: entity.name).reversed().flatMap { properties(of: graph.byName[$0]) }
        let own = properties(of: entity).sorted {
            (($0.location?.line ?? 0), $0.kind, $0.name) < (($1.location?.line ?? 0), $1.kind, $1.name)
        }
        // The first earlier property of each name and of each snake_case name: one look-up each, so
        // an entity of many properties is checked in time proportional to their number.
        var earlierByName: [String: Property] = [:]
        var earlierBySQLName: [String: Property] = [:]
        func remember(_ property: Property, sqlName: String) {
            if earlierByName[property.name] == nil { earlierByName[property.name] = property }
            if earlierBySQLName[sqlName] == nil { earlierBySQLName[sqlName] = property }
        }
        for property in inherited { remember(property, sqlName: property.name.snakeCased) }
        // Reserved and invalid names are reported by `checkName`; comparing them adds only noise.
        for property in own where SQLName.isIdentifier(property.name) {
            let sqlName = property.name.snakeCased
            guard !SQLName.reservedColumns.contains(sqlName) else { continue }
            if let same = earlierByName[property.name] {
                reportedClashes.insert(Self.clashKey("property", same.described, property.described))
                if same.declaredBy == entity.name {
                    report(property.location, "\(property.described) has the same name as \(same.described).")
                } else {
                    report(property.location, "\(property.described) repeats the name of \(same.described), "
                        + "which \(entity.name) inherits.")
                }
            } else if let clash = earlierBySQLName[sqlName] {
                report(property.location, "\(property.described) and \(clash.described) both map to the SQL name "
                    + "\"\(sqlName)\"; rename one of them.")
                reportedClashes.insert(Self.clashKey("property", clash.described, property.described))
            }
            remember(property, sqlName: sqlName)
        }
    }

    /// A text default that starts with U+FEFF would not come back from a version file: YAML
    /// readers take it for a byte-order mark and drop it (an imported bundle may hold one).
    private mutating func checkDefault(of attribute: Attribute, in entity: Entity) {
        guard case .string(let text)? = attribute.defaultValue, text.unicodeScalars.first == "\u{FEFF}" else { return }
        report(attribute.location, "the default of attribute \(entity.name).\(attribute.name) starts with U+FEFF (a byte-order mark), "
            + "which a version file cannot keep; remove it.")
    }

    private func properties(of entity: Entity?) -> [Property] {
        guard let entity else { return [] }
        return entity.attributes.map {
            Property(kind: "attribute", name: $0.name, declaredBy: entity.name, columnOverride: $0.columnOverride,
                     renamingIdentifier: $0.renamingIdentifier, location: $0.location)
        } + entity.relationships.map {
            Property(kind: "relationship", name: $0.name, declaredBy: entity.name, columnOverride: $0.columnOverride,
                     renamingIdentifier: $0.renamingIdentifier, location: $0.location)
        }
    }

    // MARK: Relationships

    /// `joinTable`, `joinColumns`, `joinKey` and `joinOnUpdate` only on a to-many that owns a join
    /// table; its names as ``checkName(_:what:at:isColumn:isSQLName:)`` checks table and column names,
    /// two different columns, each name at most 63 bytes.
    private mutating func checkJoinTableOptions(_ relationship: Relationship, of entity: Entity) {
        guard let first = relationship.joinTableOptions.first else { return }
        let what = "relationship \(entity.name).\(relationship.name)", location = relationship.location
        guard RelationalMapper(graph: graph).ownsJoinTable(relationship, declaredBy: entity.name) else {
            report(location, "\(what) has \(first), but it holds no join table: joinTable, joinColumns, joinKey and joinOnUpdate go on the "
                + "to-many that owns one (of two inverse to-manys, the side whose (entity, relationship) sorts first).")
            return
        }
        var names: [(String, String)] = []
        if let table = relationship.joinTableOverride { names.append((table, "join table \"\(table)\" of \(what)")) }
        if let columns = relationship.joinColumnsOverride {
            if columns.count != 2 || columns.first == columns.last {
                report(location, "\(what) has joinColumns [\(columns.joined(separator: ", "))]; give two different column names: "
                    + "the owner's, then the destination's.")
            }
            names += columns.map { ($0, "join column \"\($0)\" of \(what)") }
        }
        for (name, described) in names where checkName(name, what: described, at: location, isSQLName: true) && name.utf8.count > SQLName.maximumLength {
            report(location, "\(described) is \(name.utf8.count) bytes long; PostgreSQL allows at most \(SQLName.maximumLength).")
        }
    }

    /// Checks a relationship's destination, inverse, counts and column override.
    private mutating func checkRelationship(_ relationship: Relationship, of entity: Entity) {
        let what = "relationship \(entity.name).\(relationship.name)"
        let location = relationship.location
        checkCounts(relationship, what: what)
        guard let destination = graph.byName[relationship.destination] else {
            report(location, "\(what) points to entity \(relationship.destination), which does not exist.")
            return
        }
        if let inverseName = relationship.inverse {
            checkInverse(inverseName, of: relationship, in: entity, destination: destination, what: what)
        }
        guard relationship.columnOverride != nil else { return }
        let mapper = RelationalMapper(graph: graph)
        if relationship.isToMany {
            report(location, "\(what) is to-many, so it has no foreign-key column; column: applies only to a to-one.")
        } else if !mapper.holdsForeignKey(relationship, declaredBy: entity.name), let inverse = relationship.inverse {
            report(location, "\(what) does not hold the foreign key of its one-to-one pair "
                + "(\(destination.name).\(inverse) does, because it sorts first); put column: there.")
        }
    }

    private mutating func checkCounts(_ relationship: Relationship, what: String) {
        let location = relationship.location
        guard relationship.minCount != nil || relationship.maxCount != nil else { return }
        guard relationship.isToMany else {
            report(location, "\(what) is to-one; minCount and maxCount apply only to a to-many relationship.")
            return
        }
        if let min = relationship.minCount, min < 0 {
            report(location, "\(what) has minCount \(min); it cannot be negative.")
        }
        if let max = relationship.maxCount, max < 1 {
            report(location, "\(what) has maxCount \(max); it must be at least 1.")
        }
        if let min = relationship.minCount, let max = relationship.maxCount, min > max {
            report(location, "\(what) has minCount \(min) greater than maxCount \(max).")
        }
    }

    private mutating func checkInverse(
        _ inverseName: String, of relationship: Relationship, in entity: Entity, destination: Entity, what: String
    ) {
        let location = relationship.location
        let intro = "\(what) names inverse \(inverseName), but"
        guard let inverse = destination.relationship(named: inverseName) else {
            if destination.attribute(named: inverseName) != nil {
                report(location, "\(intro) \(destination.name).\(inverseName) is an attribute, not a relationship.")
            } else if graph.relationship(inverseName, of: destination.name) != nil {
                report(location, "\(intro) \(destination.name) only inherits it; "
                    + "an inverse must be declared by the destination entity itself.")
            } else {
                report(location, "\(intro) entity \(destination.name) has no relationship \(inverseName).")
            }
            return
        }
        if inverse.destination != entity.name {
            report(location, "\(intro) \(destination.name).\(inverseName) points to \(inverse.destination), "
                + "not back to \(entity.name).")
        } else if inverse.inverse == nil {
            report(location, "\(intro) \(destination.name).\(inverseName) names no inverse; "
                + "both sides must name each other.")
        } else if inverse.inverse != relationship.name {
            report(location, "\(intro) \(destination.name).\(inverseName) names \(inverse.inverse!) as its inverse, "
                + "not \(relationship.name).")
        }
    }

    // MARK: SQL names

    /// Maps the model to tables and checks the SQL names that result: no two tables, no two columns
    /// of a table, and no two relations of the schema (tables, indexes, unique and primary-key
    /// constraints) share a name, and no table or column name given by the model exceeds 63 bytes.
    private mutating func checkSQLNames() {
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
            // (A key that is a unique index is one of the indexes.)
            let relations = (table.keyIsUniqueIndex == true ? [] : [(table.primaryKey.name, "primary key")])
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

    // MARK: Helpers

    /// Orders by source line (declaration order in a file), then by name.
    private static func declarationOrder(_ lhs: Entity, _ rhs: Entity) -> Bool {
        ((lhs.location?.file ?? ""), (lhs.location?.line ?? 0), lhs.name)
            < ((rhs.location?.file ?? ""), (rhs.location?.line ?? 0), rhs.name)
    }

    /// A key for a clash between two named things, independent of their order.
    private static func clashKey(_ kind: String, _ first: String, _ second: String) -> String {
        kind + ":" + [first, second].sorted().joined(separator: "|")
    }
}
