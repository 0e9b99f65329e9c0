import EntityModel
import TypedSQL

extension MappingCompiler {
    /// Replaces the placeholders of a mapping expression, so SQL over other source tables works
    /// whatever the tenant's schema and whatever the step renamed:
    /// - `{schema}`: the tenant's quoted schema;
    /// - `{source:Entity}`: the quoted, qualified table of a source entity, as named while the
    ///   mappings run (a table the step drops still exists then);
    /// - `{source:Entity.relationship}`: the join table of a source many-to-many or
    ///   one-directional to-many relationship;
    /// - `{enum:name}`: an enum type of the step's versions, qualified in the tenant's schema, for a
    ///   cast (`CAST(x AS {enum:order_status})`): the mappings run with `search_path = pg_catalog,
    ///   pg_temp`, where a bare type name is not found (42704) and no role can put one before it.
    ///
    /// The expression's own text goes in as it is (`raw:`): it is the mapping author's SQL, which
    /// the migration runs by design (the preflight parses it first); only the names it asks for
    /// through placeholders are typed.
    ///
    /// Braces inside the expression's quoted text (a string literal such as an array's
    /// `'{a,b}'` or a JSON `'{"a": 1}'`, a quoted identifier, a dollar-quoted string, a comment)
    /// are that text's own: only braces in the SQL itself are placeholders.
    func substitutePlaceholders(_ expression: String) throws -> SQL {
        guard expression.contains("{") else { return "\(raw: expression)" }
        var result: SQL = ""
        var rest = expression[...]
        for range in PlaceholderScan.placeholders(in: expression) {
            result.append("\(raw: String(rest[..<range.lowerBound]))")
            let name = String(expression[expression.index(after: range.lowerBound)..<expression.index(before: range.upperBound)])
            result.append(try placeholder(name))
            rest = expression[range.upperBound...]
        }
        return result + "\(raw: String(rest))"
    }

    private func placeholder(_ name: String) throws -> SQL {
        if name == "schema" { return SQL.schema }
        if name.hasPrefix("enum:") { return try enumType(String(name.dropFirst("enum:".count))) }
        guard name.hasPrefix("source:") else {
            throw KeyPathError("unknown placeholder {\(name)}; use {schema}, {source:Entity}, {source:Entity.relationship} or {enum:name}")
        }
        let path = name.dropFirst("source:".count).split(separator: ".").map(String.init)
        guard let entity = path.first, source.entity(named: entity) != nil else {
            throw KeyPathError("{\(name)}: version \(source.name) has no entity \(path.first ?? "")")
        }
        if path.count == 1, let table = sourceTable(of: entity) { return "\(table: table)" }
        guard path.count == 2, let table = sourceJoinTable(of: entity, path[1]) else {
            throw KeyPathError("{\(name)}: \(entity).\(path.count == 2 ? path[1] : "") has no join table in \(source.name)")
        }
        return "\(table: table.name)"
    }

    /// `{enum:name}`: the enum type `name` of the destination version (or of the source, which
    /// still has it while the mappings run), in the tenant's schema, as the step's own casts name it.
    private func enumType(_ name: String) throws -> SQL {
        guard differ.destination.enums.contains(where: { $0.name == name }) || source.enums.contains(where: { $0.name == name }) else {
            throw KeyPathError("{enum:\(name)}: neither \(source.name) nor \(differ.destination.name) has an enum \(name)")
        }
        return "\(table: name)"
    }

    /// The join table of a source relationship (owned by either end), as named while mappings
    /// run, with its column for this entity's side and for the other side.
    func sourceJoinTable(of entity: String, _ relationship: String) -> (name: String, this: String, other: String)? {
        guard let (declaredBy, declared) = source.allRelationships(of: entity).first(where: { $0.relationship.name == relationship }) else { return nil }
        if let table = differ.old.joinTable(forEntity: declaredBy, relationship: relationship),
           let this = table.column(withOrigin: .joinSource(entity: declaredBy, relationship: relationship)),
           let other = table.column(withOrigin: .joinDestination(entity: declaredBy, relationship: relationship)) {
            return (differ.currentName(ofOldTable: table.name), differ.currentName(ofOldColumn: this.name, in: table.name),
                    differ.currentName(ofOldColumn: other.name, in: table.name))
        }
        guard let inverse = declared.inverse,
              let owner = source.allRelationships(of: declared.destination).first(where: { $0.relationship.name == inverse })?.declaredBy,
              let table = differ.old.joinTable(forEntity: owner, relationship: inverse),
              let this = table.column(withOrigin: .joinDestination(entity: owner, relationship: inverse)),
              let other = table.column(withOrigin: .joinSource(entity: owner, relationship: inverse)) else { return nil }
        return (differ.currentName(ofOldTable: table.name), differ.currentName(ofOldColumn: this.name, in: table.name),
                differ.currentName(ofOldColumn: other.name, in: table.name))
    }

    /// `SELECT` of the ids a source to-many relationship links each row of `entity` to, as
    /// `(x, y)` pairs (x: this side's id), through its join table or the inverse's foreign key.
    func sourceLinks(of entity: String, _ relationship: String) -> SQL? {
        if let join = sourceJoinTable(of: entity, relationship) {
            return "SELECT \(id: join.this) AS x, \(id: join.other) AS y FROM \(table: join.name)"
        }
        guard let declared = source.allRelationships(of: entity).first(where: { $0.relationship.name == relationship })?.relationship,
              declared.isToMany, let inverse = declared.inverse,
              let owner = source.allRelationships(of: declared.destination).first(where: { $0.relationship.name == inverse })?.declaredBy,
              let holder = differ.old.table(forEntity: source.rootEntity(of: owner)),
              let column = holder.column(withOrigin: .relationship(entity: owner, relationship: inverse)) else { return nil }
        let key: SQL = "\(id: differ.currentName(ofOldColumn: column.name, in: holder.name))"
        return "SELECT \(key) AS x, id AS y FROM \(table: differ.currentName(ofOldTable: holder.name)) WHERE \(key) IS NOT NULL"
    }
}
