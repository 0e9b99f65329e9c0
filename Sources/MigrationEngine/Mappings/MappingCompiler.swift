import EntityModel
import TypedSQL

/// Compiles declarative entity mappings into set-based SQL that runs inside the in-place step,
/// after the step's renames and additions and before its drops: `UPDATE … FROM (SELECT …)` when a
/// mapping keeps rows in their table, `INSERT … SELECT` when it makes rows in another one. Source
/// key paths through to-one relationships become LEFT JOINs.
///
/// The compiler names no tenant schema: what it writes is ``SQL`` for any tenant.
struct MappingCompiler {
    let differ: SchemaDiffer

    var source: ModelVersion { differ.source }
    var destination: ModelVersion { differ.destination }

    /// The source entity's table as it is named while mappings run (after renames).
    func sourceTable(of entity: String) -> String? {
        guard let table = differ.old.table(forEntity: source.rootEntity(of: entity)) else { return nil }
        return differ.currentName(ofOldTable: table.name)
    }

    func destinationTable(of entity: String) -> Table? {
        differ.new.table(forEntity: destination.rootEntity(of: entity))
    }

    /// Whether the mapping keeps its rows in place: the source's table became the destination's.
    func isInPlace(_ mapping: EntityMapping) -> Bool {
        guard let oldTable = differ.old.table(forEntity: source.rootEntity(of: mapping.source)) else { return false }
        return differ.tableMatch[oldTable.name] == destinationTable(of: mapping.destination)?.name
    }

    /// Whether an in-place mapping changes its rows' entity.
    func isRetyped(_ mapping: EntityMapping) -> Bool {
        differ.correspondence.entities[mapping.source] != mapping.destination
    }

    /// Whether the mapping's source table has a discriminator while the mappings run.
    func sourceHasDiscriminator(_ mapping: EntityMapping) -> Bool {
        differ.old.table(forEntity: source.rootEntity(of: mapping.source))?.column(withOrigin: .discriminator) != nil
    }

    /// The SQL of one key path: the column expression and the joins it needs.
    struct Selection {
        var joins: [SQL] = []
        var joinAliases: Set<SQLAlias> = []

        /// `FROM <schema>."table" AS source LEFT JOIN …`, for the source table `table`.
        func from(_ table: String) -> SQL {
            "\(table: table) AS source\(joins.map { " \($0)" }, joinedBy: "")"
        }
    }

    /// Rewrites every `source…` key path of `expression` into a column of the right join, adding
    /// joins, and every placeholder into the table it names.
    func rewrite(_ expression: String, from entity: String, into selection: inout Selection) throws -> SQL {
        var result: SQL = ""
        var rest = expression.startIndex
        for (range, path) in SourceKeyPath.occurrences(in: expression) {
            guard case let .success(resolved) = path.resolve(from: entity, in: source) else {
                throw KeyPathError("cannot resolve source.\(path.segments.joined(separator: ".")) from \(entity)")
            }
            var alias: SQLAlias = "source"
            var current = entity
            for hop in resolved.hops {
                let next = alias.appending(hop.relationship)
                if selection.joinAliases.insert(next).inserted {
                    selection.joins.append(try join(hop, from: alias, entity: current, as: next))
                }
                alias = next
                current = hop.destination
            }
            let column = resolved.column == "id" ? try identityColumn(of: current) : currentColumn(resolved.column, of: current)
            result.append(try substitutePlaceholders(String(expression[rest..<range.lowerBound])))
            result.append("\(alias: alias).\(id: column)")
            rest = range.upperBound
        }
        result.append(try substitutePlaceholders(String(expression[rest...])))
        return result
    }

    /// A source column's name while mappings run.
    func currentColumn(_ column: String, of entity: String) -> String {
        guard let table = differ.old.table(forEntity: source.rootEntity(of: entity)) else { return column }
        return differ.currentName(ofOldColumn: column, in: table.name)
    }

    private func join(_ hop: SourceKeyPath.Resolved.Hop, from alias: SQLAlias, entity: String, as next: SQLAlias) throws -> SQL {
        guard let table = sourceTable(of: hop.destination) else { throw KeyPathError("no table for \(hop.destination)") }
        if let holder = differ.old.table(forEntity: source.rootEntity(of: hop.entity)),
           let column = holder.column(withOrigin: .relationship(entity: hop.entity, relationship: hop.relationship)) {
            return "LEFT JOIN \(table: table) AS \(alias: next) ON \(referenced(next, entity: hop.destination)) = \(alias: alias).\(id: differ.currentName(ofOldColumn: column.name, in: holder.name))"
        }
        // A one-to-one whose foreign key is on the other side.
        guard let inverse = source.entity(named: hop.entity)?.relationship(named: hop.relationship)?.inverse,
              let holder = differ.old.table(forEntity: source.rootEntity(of: hop.destination)),
              let column = holder.column(withOrigin: .relationship(entity: hop.destination, relationship: inverse)) else {
            throw KeyPathError("\(hop.entity).\(hop.relationship) has no foreign key to join through")
        }
        return "LEFT JOIN \(table: table) AS \(alias: next) ON \(alias: next).\(id: differ.currentName(ofOldColumn: column.name, in: holder.name)) = \(referenced(alias, entity: hop.entity))"
    }

    /// `WHERE` conditions: the filter, and the source entity's rows in a shared hierarchy table.
    func conditions(of mapping: EntityMapping, into selection: inout Selection) throws -> [SQL] {
        var conditions: [SQL] = []
        if let filter = mapping.filter { conditions.append("(\(try rewrite(filter, from: mapping.source, into: &selection)))") }
        if let oldTable = differ.old.table(forEntity: source.rootEntity(of: mapping.source)), oldTable.column(withOrigin: .discriminator) != nil {
            let names = source.hierarchy(of: mapping.source).filter { source.entity(named: $0)?.isAbstract == false }
                .map { differ.correspondence.entities[$0] ?? $0 }
            conditions.append("source.\(id: "entity") IN (\(literals: names))")
        }
        return conditions
    }

    /// ` WHERE a AND b`, or nothing.
    static func whereClause(_ conditions: [SQL]) -> SQL {
        conditions.isEmpty ? "" : " WHERE \(conditions, joinedBy: " AND ")"
    }

    /// Destination column → value expression: the mapping's expressions, then unmentioned
    /// attributes copied by name or renamingIdentifier.
    func attributeValues(of mapping: EntityMapping, into selection: inout Selection, copyUnmentioned: Bool) throws -> [(column: String, value: SQL)] {
        guard let table = destinationTable(of: mapping.destination) else { return [] }
        var values: [(String, SQL)] = []
        var mentioned: Set<String> = []
        for expression in mapping.attributes {
            guard let (declaredBy, _) = destination.allAttributes(of: mapping.destination).first(where: { $0.attribute.name == expression.attribute }),
                  let column = table.column(withOrigin: .attribute(entity: declaredBy, attribute: expression.attribute)) else { continue }
            values.append((column.name, try rewrite(expression.expression, from: mapping.source, into: &selection)))
            mentioned.insert(expression.attribute)
        }
        guard copyUnmentioned else { return values }
        let sourceAttributes = source.allAttributes(of: mapping.source)
        for (declaredBy, attribute) in destination.allAttributes(of: mapping.destination) where !mentioned.contains(attribute.name) {
            guard let match = sourceAttributes.first(where: { $0.attribute.name == (attribute.renamingIdentifier ?? attribute.name) })
                    ?? sourceAttributes.first(where: { $0.attribute.name == attribute.name }),
                  let column = table.column(withOrigin: .attribute(entity: declaredBy, attribute: attribute.name)) else { continue }
            values.append((column.name, "source.\(id: currentColumn(match.attribute.columnName, of: mapping.source))"))
        }
        return values
    }

    /// What an in-place mapping that changes its rows' entity copies, as Core Data's default
    /// attribute mapping does: each unmentioned destination attribute whose source attribute of the
    /// same name (or `renamingIdentifier`) is stored in another column (sibling sub-entities keep
    /// their own columns). Names as the mappings see them: `source` is the live source column.
    func retypeCopies(of mapping: EntityMapping) -> [(attribute: String, source: String, destination: String)] {
        guard isInPlace(mapping), isRetyped(mapping), let table = destinationTable(of: mapping.destination),
              let oldTable = differ.old.table(forEntity: source.rootEntity(of: mapping.source)) else { return [] }
        let mentioned = Set(mapping.attributes.map(\.attribute))
        let sourceAttributes = source.allAttributes(of: mapping.source)
        return destination.allAttributes(of: mapping.destination).compactMap { declaredBy, attribute in
            guard !mentioned.contains(attribute.name),
                  let match = sourceAttributes.first(where: { $0.attribute.name == (attribute.renamingIdentifier ?? attribute.name) })
                    ?? sourceAttributes.first(where: { $0.attribute.name == attribute.name }),
                  let from = oldTable.column(withOrigin: .attribute(entity: match.declaredBy, attribute: match.attribute.name)),
                  let to = table.column(withOrigin: .attribute(entity: declaredBy, attribute: attribute.name)),
                  differ.columnMatch[oldTable.name]?[from.name] != to.name else { return nil }
            return (attribute.name, differ.currentName(ofOldColumn: from.name, in: oldTable.name), to.name)
        }
    }

    /// The transaction-local setting that holds a declarative mapping's id offset (destination id =
    /// source id + offset), as a string constant.
    static func offsetSetting(_ mapping: EntityMapping) -> SQL {
        "\(literal: "tenant_migrate.offset_\(mapping.name.lowercased())")"
    }

    /// Pass 1: the rows of a declarative mapping (and the attribute values of a policy mapping's
    /// destination, when it also has expressions).
    func createInstances(_ mapping: EntityMapping) throws -> [SQL] {
        guard let sourceTable = sourceTable(of: mapping.source), let table = destinationTable(of: mapping.destination) else { return [] }
        var selection = Selection()
        let inPlace = isInPlace(mapping)
        if !inPlace, mapping.policy != nil {
            // The policy creates the rows in another table itself (context.insert).
            guard mapping.attributes.isEmpty else {
                throw MappingCompileError("mapping \(mapping.name): its policy creates the \(mapping.destination) rows, so its attribute expressions would never run; set those values in the policy")
            }
            return []
        }
        if mapping.distinct != nil { return try createDistinctInstances(mapping, into: table) }
        var values = try attributeValues(of: mapping, into: &selection, copyUnmentioned: !inPlace)
        let whereClause = Self.whereClause(try conditions(of: mapping, into: &selection))
        let fromClause = selection.from(sourceTable)
        let discriminator = table.column(withOrigin: .discriminator)
        if inPlace {
            values += retypeCopies(of: mapping).map { ($0.destination, "source.\(id: $0.source)") }
            if isRetyped(mapping), discriminator != nil || sourceHasDiscriminator(mapping) {
                // (While the mappings run, the old discriminator still exists: a retyped row of an
                // entity that no longer exists is not deleted after them.)
                values.append(("entity", "\(literal: mapping.destination)"))
            }
            guard !values.isEmpty else { return [] }
            if selection.joins.isEmpty {
                // No key path leaves the row: a plain UPDATE of the table, aliased as the source
                // (every SET expression reads the row as it was, as in the subquery form below).
                let assignments: [SQL] = values.map { "\(id: $0.column) = \($0.value)" }
                return ["UPDATE \(table: table.name) AS source SET \(assignments, joinedBy: ", ")\(whereClause)"]
            }
            let selectList: [SQL] = values.enumerated().map { "\($0.element.value) AS v\(int: $0.offset)" }
            let assignments: [SQL] = values.enumerated().map { "\(id: $0.element.column) = s.v\(int: $0.offset)" }
            if let key = sourceKey(of: mapping.source) {
                return ["UPDATE \(table: table.name) AS target SET \(assignments, joinedBy: ", ") "
                    + "FROM (SELECT \(Self.keySelect(key) + selectList, joinedBy: ", ") FROM \(fromClause)\(whereClause)) AS s WHERE \(Self.keyMatch(key))"]
            }
            return ["UPDATE \(table: table.name) AS target SET \(assignments, joinedBy: ", ") "
                + "FROM (SELECT source.id, \(selectList, joinedBy: ", ") FROM \(fromClause)\(whereClause)) AS s WHERE target.id = s.id"]
        }
        if sourceKey(of: mapping.source) != nil {
            return try insertKeyedRows(of: mapping, into: table, values: values, from: fromClause, whereClause: whereClause)
        }
        let id: SQL = "source.id + pg_catalog.current_setting(\(Self.offsetSetting(mapping)))::bigint"
        return insertRows(of: mapping, into: table, id: id, values: values, from: fromClause, whereClause: whereClause)
    }

    /// Rows of a mapping into another table: the offset (the table's largest id), `INSERT … SELECT`
    /// with each row's `id` (and discriminator), the identity moved past the new ids.
    func insertRows(of mapping: EntityMapping, into table: Table, id: SQL, values: [(column: String, value: SQL)], from fromClause: SQL, whereClause: SQL) -> [SQL] {
        let setting = Self.offsetSetting(mapping)
        var columns = ["id"]
        var expressions: [SQL] = [id]
        if table.column(withOrigin: .discriminator) != nil {
            columns.append("entity")
            expressions.append("\(literal: mapping.destination)")
        }
        columns += values.map(\.column)
        expressions += values.map(\.value)
        return [
            "SELECT pg_catalog.set_config(\(setting), (SELECT coalesce(pg_catalog.max(id), 0) FROM \(table: table.name))::text, true)",
            "INSERT INTO \(table: table.name) (\(ids: columns))\(table.overridingSystemValue) SELECT \(expressions, joinedBy: ", ") FROM \(fromClause)\(whereClause)",
        ] + SchemaOperation.resetIdentity(table: table.name).statements
    }

    /// Pass 2: the relationship mappings, once every mapping has created its rows.
    func createRelationships(_ mapping: EntityMapping, in model: MappingModel) throws -> [SQL] {
        guard !mapping.relationships.isEmpty, let sourceTable = sourceTable(of: mapping.source),
              let table = destinationTable(of: mapping.destination) else { return [] }
        if mapping.policy != nil, !isInPlace(mapping) {
            throw MappingCompileError("mapping \(mapping.name): its policy creates the \(mapping.destination) rows, so it must also set their relationships (context.link, or to-one ids in context.insert)")
        }
        if let plain = try plainDistinctLink(mapping, in: model, table: table) { return [plain] }
        var selection = Selection()
        // A distinct mapping's rows are those of its keys' first rows, with their ids.
        let holder = try distinctRows(mapping, into: &selection)
        if let holder { selection.joins.append(holder.joinFirstRows(as: "tm_holder")) }
        var values: [(String, SQL)] = []
        for relationship in mapping.relationships {
            guard let (declaredBy, _) = destination.allRelationships(of: mapping.destination).first(where: { $0.relationship.name == relationship.relationship }),
                  let column = table.column(withOrigin: .relationship(entity: declaredBy, relationship: relationship.relationship)) else { continue }
            if let target = relationship.mappings.first.flatMap(model.entityMapping(named:)), target.distinct != nil {
                // The row the distinct mapping made for the key of the row at `from`.
                values.append((column.name, try distinctLink(to: target, from: relationship.from, of: mapping.source, into: &selection)))
                continue
            }
            let fromPath = relationship.from == "source" ? "source.id" : relationship.from
            // A key path ending on a to-one relationship reads its foreign key: already an id.
            let related = try rewrite(fromPath, from: mapping.source, into: &selection)
            // The first of the named mappings that made a row from that source row.
            var candidates: [SQL] = []
            for name in relationship.mappings {
                guard let target = model.entityMapping(named: name) else { continue }
                if isInPlace(target) {
                    // In place, every source row is still its own destination row.
                    candidates.append(related)
                    break
                }
                guard target.distinct == nil else {
                    throw MappingCompileError("mapping \(mapping.name): relationship \(relationship.relationship) names distinct mapping \(target.name) among others; name it alone")
                }
                guard target.policy == nil else {
                    throw MappingCompileError("mapping \(mapping.name): relationship \(relationship.relationship) refers to mapping \(target.name), whose rows its policy creates; "
                        + "set the relationship in a policy, with context.destinations(of:mapping:)")
                }
                guard let targetTable = destinationTable(of: target.destination) else { continue }
                if let key = destinationKey(of: target.destination), key.count == 1 {
                    // A keyed row made from that source row has its key: there if the target's filter let it be made.
                    candidates.append("(SELECT tm_target.\(id: key[0]) FROM \(table: targetTable.name) AS tm_target WHERE tm_target.\(id: key[0]) = (\(related)))")
                    continue
                }
                // The row the target mapping made from that source row, if its filter let it make one.
                candidates.append("(SELECT tm_target.id FROM \(table: targetTable.name) AS tm_target WHERE tm_target.id = "
                    + "(\(related)) + pg_catalog.current_setting(\(Self.offsetSetting(target)))::bigint)")
            }
            guard !candidates.isEmpty else { continue }
            values.append((column.name, candidates.count == 1 ? candidates[0] : "coalesce(\(candidates, joinedBy: ", "))"))
        }
        guard !values.isEmpty else { return [] }
        let whereClause: SQL = holder != nil ? "" : Self.whereClause(try conditions(of: mapping, into: &selection))
        let fromClause = selection.from(sourceTable)
        if holder == nil, let key = sourceKey(of: mapping.source), let destinationKey = destinationKey(of: mapping.destination) {
            // The row the mapping made (or kept in place) has the source row's key.
            let selectList: [SQL] = Self.keySelect(key) + values.enumerated().map { "\($0.element.1) AS v\(int: $0.offset)" }
            let assignments: [SQL] = values.enumerated().map { "\(id: $0.element.0) = s.v\(int: $0.offset)" }
            return ["UPDATE \(table: table.name) AS target SET \(assignments, joinedBy: ", ") "
                + "FROM (SELECT \(selectList, joinedBy: ", ") FROM \(fromClause)\(whereClause)) AS s WHERE \(Self.keyMatch(destinationKey))"]
        }
        let idExpression: SQL = holder != nil ? "tm_holder.id"
            : (isInPlace(mapping) ? "source.id" : "source.id + pg_catalog.current_setting(\(Self.offsetSetting(mapping)))::bigint")
        let selectList: [SQL] = values.enumerated().map { "\($0.element.1) AS v\(int: $0.offset)" }
        let assignments: [SQL] = values.enumerated().map { "\(id: $0.element.0) = s.v\(int: $0.offset)" }
        return ["UPDATE \(table: table.name) AS target SET \(assignments, joinedBy: ", ") "
            + "FROM (SELECT \(idExpression) AS id, \(selectList, joinedBy: ", ") FROM \(fromClause)\(whereClause)) AS s WHERE target.id = s.id"]
    }
}

/// A mapping that loaded but cannot be compiled into SQL.
struct MappingCompileError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
