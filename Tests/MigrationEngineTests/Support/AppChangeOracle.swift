import EntityModel
import LibPQ
import TypedSQL

/// What a tenant's values must be after a way up, changes the app made at the upper version, and
/// the way down, worked out from the documented rules (docs/Archive.md, "Rollback semantics" and
/// "Superseded values") and from what the generator knows of its family, not from the engine:
///
/// - a value the app never touched comes back exactly;
/// - where the app changed what the way down derives a column from (the column itself, carried; the
///   attribute a mapped way back reads; the attribute a mapping made from a dropped one), the app's
///   change wins: the column gets what the way down derives from the app's value (the column's
///   default where nothing derives it), and the archived value is kept, superseded;
/// - rows the app inserted get what the way down derives (defaults elsewhere); rows it deleted are
///   gone, with every link to them (a to-one becomes NULL, a join-table row goes).
///
/// Only plain entities (no hierarchy) present at both versions are changed by the app
/// (``tables``); a column whose way down the generator cannot follow (``Derivation/unknown``) keeps
/// its table from inserts.
struct AppChangeOracle {
    /// How a column of the lower version comes back from the upper one. Expressions are SQL over `{x}`.
    enum Derivation: Equatable {
        /// The upper version's column, carried back (rewritten by `transform` where the mapped way
        /// down rewrites it in place; `{x}` where only the way up did); compared as it is.
        case carried(column: String, transform: String?)
        /// Derived by a mapped way back from the upper version's `column`.
        case wayBack(column: String, expression: String)
        /// A mapping made `column` from it on the way up, and nothing derives it on the way down.
        case derivedWithoutWayBack(column: String)
        /// Derived by a mapped way back from another row: `column` of the row of `table` the
        /// upper version's to-one `link` names (a `distinct:` mapping's way back,
        /// `source.link.name`). The app changes it through that row or by relinking, and its
        /// change wins as any other (issue 30, class 5).
        case throughLink(link: String, table: String, column: String)
        /// Nothing at the upper version: only the archive gives it back.
        case archived
        /// A chain of mapped steps the oracle does not follow (the way back of a dropped attribute
        /// rewritten in place before, or whose derived attribute is rewritten or dropped after):
        /// the app leaves `frozen` (the upper version's column it comes from) alone, so the value
        /// must come back as it was.
        case unknown(frozen: String?)

        /// The upper version's column it reads, if any.
        var source: String? {
            switch self {
            case let .carried(column, _), let .wayBack(column, _), let .derivedWithoutWayBack(column): column
            case let .throughLink(link, _, _): link
            case .archived, .unknown: nil
            }
        }

        /// The upper version's column the app must not change.
        var frozen: String? {
            if case let .unknown(frozen) = self { return frozen }
            return nil
        }

        /// What the way down gives from `x` (nil: the column's default), other rows read in `schema`.
        func result(_ x: String, in schema: String) -> String? {
            switch self {
            case let .carried(_, transform): (transform ?? "{x}").replacingOccurrences(of: "{x}", with: "(\(x))")
            case let .wayBack(_, expression): expression.replacingOccurrences(of: "{x}", with: "(\(x))")
            case let .throughLink(_, table, column): "(SELECT t.\"\(column)\" FROM \"\(schema)\".\"\(table)\" AS t WHERE t.id = (\(x)))"
            case .derivedWithoutWayBack, .archived, .unknown: nil
            }
        }

        /// What the archive compares to tell an app's change: the way back's value where it proves,
        /// else the column the way up left.
        func compared(_ x: String, in schema: String) -> String {
            switch self {
            case .wayBack, .throughLink: result(x, in: schema)!
            default: "(\(x))"
            }
        }
    }

    /// A table of a plain entity at both versions, and how each column of the lower comes back.
    struct TablePair {
        var lower: Table
        var upper: Table
        var derivations: [String: Derivation]
        /// Whether a row the app inserts can come down (no required column without a value).
        var acceptsInserts: Bool
    }

    let family: FamilyGenerator.Family
    let lowerIndex: Int, upperIndex: Int
    let lower: RelationalSchema, upper: RelationalSchema
    private(set) var tables: [TablePair] = []

    init(family: FamilyGenerator.Family, lower lowerIndex: Int, upper upperIndex: Int, versions: [ModelVersion]) {
        self.family = family
        self.lowerIndex = lowerIndex
        self.upperIndex = upperIndex
        lower = versions[lowerIndex].relationalSchema()
        upper = versions[upperIndex].relationalSchema()
        let (low, up) = (family.models[lowerIndex], family.models[upperIndex])
        for table in lower.tables {
            guard case let .entity(name) = table.origin, let entity = low.entity(name), entity.parent == nil, low.children(of: name).isEmpty,
                  let counterpart = up.entities.first(where: { $0.lineage == entity.lineage }), counterpart.parent == nil,
                  up.children(of: counterpart.name).isEmpty,
                  let upperTable = upper.tables.first(where: { $0.origin == .entity(counterpart.name) })
            else { continue }
            var derivations: [String: Derivation] = [:]
            var acceptsInserts = true
            for column in table.columns {
                let derivation = self.derivation(of: column, entity: entity, counterpart: counterpart, upperTable: upperTable)
                derivations[column.name] = derivation
                if derivation.frozen != nil || derivation == .unknown(frozen: nil) || (derivation.source == nil && !column.isNullable && column.defaultValue == nil && !column.isIdentity) {
                    acceptsInserts = false
                }
            }
            tables.append(TablePair(lower: table, upper: upperTable, derivations: derivations, acceptsInserts: acceptsInserts))
        }
    }

    private func derivation(of column: Column, entity: FamilyGenerator.Entity, counterpart: FamilyGenerator.Entity, upperTable: Table) -> Derivation {
        switch column.origin {
        case .primaryKey: return .carried(column: column.name, transform: nil)
        case let .relationship(_, name):
            guard let lineage = entity.relationships.first(where: { $0.name == name })?.lineage,
                  let upperRelationship = counterpart.relationships.first(where: { $0.lineage == lineage }), !upperRelationship.toMany,
                  let upperColumn = upperTable.columns.first(where: { $0.origin == .relationship(entity: counterpart.name, relationship: upperRelationship.name) })
            else { return .archived }
            return .carried(column: upperColumn.name, transform: nil)
        case let .attribute(_, name):
            guard let lineage = entity.attributes.first(where: { $0.name == name })?.lineage else { return .unknown(frozen: nil) }
            let changes = family.mappedChanges.filter { $0.entity == entity.lineage && $0.version > lowerIndex && $0.version <= upperIndex }
            if let kept = counterpart.attributes.first(where: { $0.lineage == lineage }) {
                // (Rewritten in place on the way up: "{x}" where the way down carries it as it is.)
                var transform: String?
                for change in changes.sorted(by: { $0.version > $1.version }) {
                    if case let .inPlace(attribute, down) = change.kind, attribute == lineage {
                        transform = (down ?? "{x}").replacingOccurrences(of: "{x}", with: "(\(transform ?? "{x}"))")
                    }
                }
                return .carried(column: upperColumnName(kept.name, counterpart, upperTable), transform: transform)
            }
            for change in changes {
                if case let .distinct(old, target, name, link, wayBack) = change.kind, old == lineage {
                    return throughLink(change, target: target, name: name, link: link, wayBack: wayBack, counterpart: counterpart, upperTable: upperTable)
                }
                guard case let .derived(old, derived, wayBack) = change.kind, old == lineage else { continue }
                let made = counterpart.attributes.first(where: { $0.lineage == derived })
                let name = made.map { upperColumnName($0.name, counterpart, upperTable) }
                // (The derived attribute, untouched by later mapped steps, must be at the upper
                // version, and the dropped one not rewritten in place before.)
                let chained = changes.contains { other in
                    switch other.kind {
                    case let .inPlace(attribute, _): attribute == derived || (attribute == lineage && other.version < change.version)
                    case let .derived(old, _, _): old == derived
                    case .distinct: false
                    }
                }
                guard let name, !chained else {
                    // (Frozen: the last attribute of the chain, where it reaches the upper version.)
                    var last = derived
                    while let next = changes.lazy.compactMap({ other -> String? in
                        if case let .derived(old, made, _) = other.kind, old == last { return made }
                        return nil
                    }).first { last = next }
                    return .unknown(frozen: counterpart.attributes.first { $0.lineage == last }.map { upperColumnName($0.name, counterpart, upperTable) })
                }
                return wayBack.map { .wayBack(column: name, expression: $0) } ?? .derivedWithoutWayBack(column: name)
            }
            return .archived
        case .discriminator, .joinSource, .joinDestination: return .unknown(frozen: nil)
        }
    }

    /// How the attribute a `distinct:` mapping extracted comes back: through the upper version's
    /// link, where its way back reads it and no later mapped step rewrites what it reads (the
    /// attribute rewritten in place before, the extracted name after); else the archive alone
    /// gives it back and the app leaves it alone.
    private func throughLink(_ change: FamilyGenerator.MappedChange, target: String, name: String, link: String, wayBack: Bool,
                             counterpart: FamilyGenerator.Entity, upperTable: Table) -> Derivation {
        guard case let .distinct(old, _, _, _, _) = change.kind else { return .unknown(frozen: nil) }
        let chained = family.mappedChanges.contains { other in
            guard other.version > lowerIndex, other.version <= upperIndex else { return false }
            if other.entity == change.entity, other.version < change.version, case let .inPlace(attribute, _) = other.kind { return attribute == old }
            guard other.entity == target, other.version > change.version else { return false }
            switch other.kind {
            case let .inPlace(attribute, _): return attribute == name
            case let .derived(old, _, _), let .distinct(old, _, _, _, _): return old == name
            }
        }
        let model = family.models[upperIndex]
        guard wayBack, !chained, let relationship = counterpart.relationships.first(where: { $0.lineage == link && !$0.toMany }),
              let linkColumn = upperTable.columns.first(where: { $0.origin == .relationship(entity: counterpart.name, relationship: relationship.name) }),
              let entity = model.entities.first(where: { $0.lineage == target }), entity.name == relationship.destination,
              let attribute = entity.attributes.first(where: { $0.lineage == name }),
              let table = upper.tables.first(where: { $0.origin == .entity(entity.name) })
        else { return .unknown(frozen: nil) }
        return .throughLink(link: linkColumn.name, table: table.name, column: upperColumnName(attribute.name, entity, table))
    }

    /// The upper version's tables a copy made right after the way up must hold: ``tables``' and
    /// those a derivation reads through a link.
    var upLeftTables: [Table] {
        var found = tables.map(\.upper)
        for pair in tables {
            for case let .throughLink(_, name, _) in pair.derivations.values where !found.contains(where: { $0.name == name }) {
                found += upper.tables.filter { $0.name == name }
            }
        }
        return found
    }

    private func upperColumnName(_ attribute: String, _ entity: FamilyGenerator.Entity, _ table: Table) -> String {
        table.columns.first { $0.origin == .attribute(entity: entity.name, attribute: attribute) }!.name
    }

    /// The names `table` (lower version) has in the versions from the lower up to the one below
    /// the upper (a renamed entity's superseded entries name its table as the way back's arrival).
    func names(ofTable table: String) -> Set<String> {
        guard let pair = tables.first(where: { $0.lower.name == table }), case let .entity(entityName) = pair.lower.origin,
              let entity = family.models[lowerIndex].entity(entityName) else { return [table] }
        return Set([table] + (lowerIndex..<upperIndex).compactMap { family.models[$0].entities.first { $0.lineage == entity.lineage }?.name.snakeCased })
    }

    /// The names `column` of `table` (lower version) has in the versions from the lower up to the
    /// one below the upper: a superseded entry names it as the version its pair's way back arrives at.
    func names(of column: String, in table: String) -> Set<String> {
        guard let pair = tables.first(where: { $0.lower.name == table }), case let .entity(entityName) = pair.lower.origin,
              let entity = family.models[lowerIndex].entity(entityName),
              case let .attribute(_, attributeName)? = pair.lower.columns.first(where: { $0.name == column })?.origin,
              let lineage = entity.attributes.first(where: { $0.name == attributeName })?.lineage
        else { return [column] }
        var found: Set<String> = [column]
        for index in lowerIndex..<upperIndex {
            let model = family.models[index]
            guard let counterpart = model.entities.first(where: { $0.lineage == entity.lineage }),
                  let attribute = counterpart.attributes.first(where: { $0.lineage == lineage }) else { continue }
            // (Column names are the attributes' in snake case.)
            found.insert(attribute.name.snakeCased)
        }
        return found
    }

    // MARK: Working it out

    /// The schemas: `tenant` holds the tenant (at the upper version once the way up ran),
    /// `expected` a copy of its tables at the lower version made before the way up (the
    /// expectation, worked on here), `upLeft` a copy of ``tables``' upper tables made right after
    /// the way up, before the app's changes.
    struct Schemas {
        var tenant: String, expected: String, upLeft: String
    }

    /// Copies every table of `schema` (`version`'s tables) into a new schema `copy`: columns,
    /// defaults and rows (no identities, keys or constraints).
    static func copy(_ schema: String, tables: [Table], into copy: String, on connection: Connection) throws {
        try connection.execute("CREATE SCHEMA \(id: copy)", schema: schema)
        for table in tables {
            try connection.execute("CREATE TABLE \(id: copy).\(id: table.name) (LIKE \(table: table.name) INCLUDING DEFAULTS)", schema: schema)
            try connection.execute("INSERT INTO \(id: copy).\(id: table.name) SELECT * FROM \(table: table.name)", schema: schema)
        }
    }

    /// The values whose archived entry the app's changes must have superseded: `table column id`
    /// (lower version names) where the way down alone would not have given back what the row held
    /// (so the value was archived) and the app changed what it derives from. Call before
    /// ``apply(_:on:)``, while `expected` still holds the rows as they were.
    func supersededValues(_ schemas: Schemas, on connection: Connection) throws -> [String] {
        var found: [String] = []
        for pair in tables {
            for column in pair.lower.columns.map(\.name).sorted() {
                guard let derivation = pair.derivations[column], let source = derivation.source, derivation.result("b.x", in: schemas.upLeft) != nil, column != "id" else { continue }
                let result = derivation.result("b.\(source)", in: schemas.upLeft)!
                let query: SQL = """
                    SELECT e.id FROM \(id: schemas.expected).\(id: pair.lower.name) AS e
                    JOIN \(id: schemas.upLeft).\(id: pair.upper.name) AS b ON b.id = e.id JOIN \(table: pair.upper.name) AS u ON u.id = e.id
                    WHERE (\(raw: derivation.compared("u.\(source)", in: schemas.tenant)))::text IS DISTINCT FROM (\(raw: derivation.compared("b.\(source)", in: schemas.upLeft)))::text
                    AND e.\(id: column) IS DISTINCT FROM (\(raw: result))
                    """
                for row in try connection.execute(query, schema: schemas.tenant) {
                    found.append("\(pair.lower.name) \(column) \(try row.decode(Int64.self, at: 0))")
                }
            }
        }
        return found
    }

    /// Works the app's changes into `expected`, by the rules above.
    func apply(_ schemas: Schemas, on connection: Connection) throws {
        let expected = schemas.expected
        for pair in tables {
            let target: SQL = "\(id: expected).\(id: pair.lower.name)"
            // Changed rows: each column whose source the app changed gets what the way down derives.
            for column in pair.lower.columns.map(\.name).sorted() where column != "id" {
                guard let derivation = pair.derivations[column], let source = derivation.source else { continue }
                let value: SQL = derivation.result("u.\(source)", in: schemas.tenant).map { "\(raw: $0)" } ?? "DEFAULT"
                if derivation.result("u.x", in: schemas.tenant) == nil {
                    // (DEFAULT cannot be taken from another table: set it row by row.)
                    try connection.execute("""
                        UPDATE \(target) AS e SET \(id: column) = DEFAULT WHERE e.id IN (SELECT u.id FROM \(table: pair.upper.name) AS u
                        JOIN \(id: schemas.upLeft).\(id: pair.upper.name) AS b ON b.id = u.id WHERE u.\(id: source)::text IS DISTINCT FROM b.\(id: source)::text)
                        """, schema: schemas.tenant)
                    continue
                }
                try connection.execute("""
                    UPDATE \(target) AS e SET \(id: column) = \(value) FROM \(table: pair.upper.name) AS u
                    JOIN \(id: schemas.upLeft).\(id: pair.upper.name) AS b ON b.id = u.id
                    WHERE u.id = e.id AND (\(raw: derivation.compared("u.\(source)", in: schemas.tenant)))::text IS DISTINCT FROM (\(raw: derivation.compared("b.\(source)", in: schemas.upLeft)))::text
                    """, schema: schemas.tenant)
            }
            // Inserted rows: what the way down derives, defaults elsewhere.
            let derived = pair.lower.columns.compactMap { column -> (String, String)? in
                guard let derivation = pair.derivations[column.name], let source = derivation.source, let result = derivation.result("u.\(source)", in: schemas.tenant) else { return nil }
                return (column.name, result)
            }
            try connection.execute("""
                INSERT INTO \(target) (\(ids: derived.map(\.0))) SELECT \(derived.map { SQL(fragments: [.text($0.1)]) }, joinedBy: ", ") FROM \(table: pair.upper.name) AS u
                WHERE NOT EXISTS (SELECT FROM \(id: schemas.upLeft).\(id: pair.upper.name) AS b WHERE b.id = u.id)
                """, schema: schemas.tenant)
            // Deleted rows.
            try connection.execute("""
                DELETE FROM \(target) AS e WHERE NOT EXISTS (SELECT FROM \(table: pair.upper.name) AS u WHERE u.id = e.id)
                """, schema: schemas.tenant)
        }
        // Links to deleted rows: a to-one becomes NULL, a join-table row goes.
        let changed = Set(tables.map(\.lower.name))
        for table in lower.tables {
            for key in table.foreignKeys where changed.contains(key.referencedTable) && key.columns.count == 1 {
                let link = key.columns[0]
                let dangling: SQL = "\(id: link) IS NOT NULL AND NOT EXISTS (SELECT FROM \(id: expected).\(id: key.referencedTable) AS t WHERE t.id = e.\(id: link))"
                if case .joinTable = table.origin {
                    try connection.execute("DELETE FROM \(id: expected).\(id: table.name) AS e WHERE \(dangling)", schema: schemas.tenant)
                } else {
                    try connection.execute("UPDATE \(id: expected).\(id: table.name) AS e SET \(id: link) = NULL WHERE \(dangling)", schema: schemas.tenant)
                }
            }
        }
    }

    /// Rows of ``tables`` that rows of ``tables`` name by a required to-one of the lower version,
    /// by upper table names: `dependents[table][id]` are the rows naming row `id` of `table`.
    typealias Dependents = [String: [Int64: [(table: String, id: Int64)]]]

    /// The rows of ``tables`` each row of them is named by through a required to-one of the lower
    /// version (a NOT NULL link), read from the tenant at the lower version before the way up. The
    /// app deletes those first (``AppWorkload``): where the upper version no longer stores the
    /// link (removed, or made to-many), the way down needs the row it named, so a deleted target
    /// would leave a row with no value for its required link; where it does, PostgreSQL refuses
    /// the delete anyway.
    func dependents(in schema: String, on connection: Connection) throws -> Dependents {
        var found: Dependents = [:]
        for pair in tables {
            for key in pair.lower.foreignKeys where key.columns.count == 1 {
                guard let target = tables.first(where: { $0.lower.name == key.referencedTable }),
                      pair.lower.columns.first(where: { $0.name == key.columns[0] })?.isNullable == false else { continue }
                for row in try connection.execute("SELECT \(id: key.columns[0]), id FROM \(table: pair.lower.name)", schema: schema) {
                    found[target.upper.name, default: [:]][try row.decode(Int64.self, at: 0), default: []].append((pair.upper.name, try row.decode(Int64.self, at: 1)))
                }
            }
        }
        return found
    }

    /// Rows of ``tables`` the app may not delete, by the upper version's table name: those a table
    /// other than those and join tables links to (a whole row archived with its link would not
    /// come back where its link does not).
    func undeletable(in schema: String, on connection: Connection) throws -> [String: Set<Int64>] {
        let changed = Set(tables.map(\.lower.name))
        var found: [String: Set<Int64>] = [:]
        for table in lower.tables where !changed.contains(table.name) {
            if case .joinTable = table.origin { continue }
            for key in table.foreignKeys where changed.contains(key.referencedTable) && key.columns.count == 1 {
                for row in try connection.execute("SELECT DISTINCT \(id: key.columns[0]) FROM \(table: table.name) WHERE \(id: key.columns[0]) IS NOT NULL", schema: schema) {
                    let upper = tables.first { $0.lower.name == key.referencedTable }!.upper.name
                    found[upper, default: []].insert(try row.decode(Int64.self, at: 0))
                }
            }
        }
        return found
    }
}
