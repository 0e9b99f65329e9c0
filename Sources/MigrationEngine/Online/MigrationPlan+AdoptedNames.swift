import EntityModel
import LibPQ
import TypedSQL

extension MigrationPlan {
    /// The renames that give the tables an online run swaps in the names an adopted tenant's live
    /// tables have for their indexes and constraints (``AdoptedNames``), as an offline run keeps
    /// them: the shadow is built from the model, with the names it derives (`title_isbn_key`), where
    /// the tenant's schema had its own (Hibernate's `uk_9p0wq2e4…`, Rails' `index_volumes_on_isbn`).
    ///
    /// An object keeps the tenant's name when its table's rows come from the source table of the
    /// same name (``OnlineLineage/tableOrigins(of:)``), its derived name and shape are the same at
    /// both ends of the plan, and no step drops or renames it (those end with the derived name
    /// offline too). The tenant's names are read from `liveSchema` (one catalog query, before the
    /// swap); the renames address the swapped-in tables in `newSchema`. An object with no single
    /// counterpart in the live tables keeps the derived name. Empty for a tenant made from the model.
    ///
    /// A primary key, unique constraint or index is renamed by its index (`ALTER INDEX … RENAME TO`,
    /// which renames the constraint it carries); a foreign key or check by `ALTER TABLE … RENAME
    /// CONSTRAINT`, unless `constraintsWithoutIndex` is false: Citus refuses that on a distributed
    /// table (0A000), so the in-schema swap keeps the derived names of those (docs/Citus.md).
    public func adoptedNameRenames(liveSchema: String, newSchema: String, constraintsWithoutIndex: Bool = true, on connection: Connection) throws -> [SQL] {
        let source = self.source.relationalSchema(), destination = self.destination.relationalSchema()
        let origins = OnlineLineage.tableOrigins(of: self)
        let addressed = Set(steps.flatMap { step in AdoptedNames.addressed(by: step.program.operations, in: step.source.relationalSchema()).map(\.name) })
        let kept = destination.tables.filter { origins[$0.name] == $0.name && source.table(named: $0.name) != nil }.map(\.name)
        guard !kept.isEmpty else { return [] }
        var catalog: [String: [(name: String, definition: AdoptedNames.Definition)]] = [:]
        for row in try connection.execute(AdoptedNames.query(tables: kept), [liveSchema]) {
            catalog[try row.decode(String.self, column: "table_name"), default: []]
                .append((try row.decode(String.self, column: "name"), try AdoptedNames.Definition(row)))
        }
        var renames: [(table: String, isIndex: Bool, from: String, to: String)] = []
        for name in kept {
            guard let before = source.table(named: name), let after = destination.table(named: name) else { continue }
            let sourceObjects = AdoptedNames.Definition.all(of: before)
            let tenantNames = AdoptedNames.pair(sourceObjects, catalog[name] ?? [])
            for object in AdoptedNames.Definition.all(of: after) where !addressed.contains(object.name) {
                guard let was = sourceObjects.first(where: { $0.name == object.name }), was.definition == object.definition,
                      let tenantName = tenantNames[object.name], tenantName != object.name else { continue }
                let isIndex = ["i", "p", "u"].contains(object.definition.kind)
                guard isIndex || constraintsWithoutIndex else { continue }
                renames.append((name, isIndex, object.name, tenantName))
            }
        }
        func rename(_ object: (table: String, isIndex: Bool, from: String, to: String)) -> SQL {
            object.isIndex ? "ALTER INDEX \(schema: newSchema, table: object.from) RENAME TO \(id: object.to)"
                : "ALTER TABLE \(schema: newSchema, table: object.table) RENAME CONSTRAINT \(id: object.from) TO \(id: object.to)"
        }
        // A tenant's name that is another object's derived name (names swapped between two
        // indexes): every object goes through a name of the run's own first.
        guard !Set(renames.map(\.to)).isDisjoint(with: renames.map(\.from)) else { return renames.map(rename) }
        let passing = renames.enumerated().map { (table: $1.table, isIndex: $1.isIndex, from: $1.from, to: "_tm_adopted_name_\($0)") }
        return passing.map(rename) + zip(passing, renames).map { rename((table: $1.table, isIndex: $1.isIndex, from: $0.to, to: $1.to)) }
    }
}
