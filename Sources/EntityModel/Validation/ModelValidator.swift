/// Checks a model version against every rule in `docs/ModelFormat.md` and reports each mistake.
///
/// Checks that need a sound model (inverses, SQL names) run on whatever is sound, so one pass
/// reports everything. The checks are split by subject across `ModelValidator+*.swift`.
struct ModelValidator {
    let declared: [Entity]
    let graph: EntityGraph
    let file: String
    var diagnostics: [ModelDiagnostic] = []
    /// Pairs of properties or entities already reported as clashing, so one clash is reported once.
    var reportedClashes: Set<String> = []

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
            for relationship in entity.relationships {
                validator.checkRelationship(relationship, of: entity)
            }
        }
        validator.checkSQLNames()
        return ModelDiagnostic.sortedForDisplay(validator.diagnostics)
    }

    mutating func report(_ location: SourceLocation?, _ message: String) {
        diagnostics.append(ModelDiagnostic(at: location, orIn: file, message))
    }

    /// Checks a name a model gives (entity, property, table, column or renaming identifier).
    /// `isColumn` also reserves `id` and `entity` (and names whose snake_case is one of them).
    /// Returns `false` when it reported a mistake.
    @discardableResult
    mutating func checkName(_ name: String, what: String, at location: SourceLocation?, isColumn: Bool = false) -> Bool {
        if name.hasPrefix("_") {
            report(location, "\(what) uses a reserved name: names starting with \"_\" belong to TenantMigrator.")
            return false
        }
        if isColumn, SQLName.reservedColumns.contains(name) || SQLName.reservedColumns.contains(name.snakeCased) {
            report(location, "\(what) uses a reserved name: TenantMigrator owns the columns \"id\" and \"entity\".")
            return false
        }
        guard SQLName.isIdentifier(name) else {
            report(location, "\(what) is not a valid name: a name starts with a letter and has only letters, digits and \"_\".")
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
                checkName(table, what: "table name \"\(table)\" of entity \(entity.name)", at: entity.location)
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

    // MARK: Helpers

    /// Orders by source line (declaration order in a file), then by name.
    static func declarationOrder(_ lhs: Entity, _ rhs: Entity) -> Bool {
        ((lhs.location?.file ?? ""), (lhs.location?.line ?? 0), lhs.name)
            < ((rhs.location?.file ?? ""), (rhs.location?.line ?? 0), rhs.name)
    }

    /// A key for a clash between two named things, independent of their order.
    static func clashKey(_ kind: String, _ first: String, _ second: String) -> String {
        kind + ":" + [first, second].sorted().joined(separator: "|")
    }
}
