/// The importer's work in progress: which tables are entities and which are join tables, the
/// entities' names, and their properties as they are read. Each `ImportPlan+*.swift` file reads
/// one part of the schema; whatever it leaves unread becomes a note.
struct ImportPlan {
    let snapshot: SchemaSnapshot
    var notes: [ImportNote] = []
    /// The entity tables, by table name.
    var drafts: [String: EntityDraft] = [:]
    /// Two-key tables that may be join tables.
    var joinTables: [TableSnapshot] = []
    /// Inverses still to name, for the to-ones read from foreign keys.
    var pendingInverses: [PendingInverse] = []
    /// Each entity table's key where it is not the standard `id` (``readKeys()``), by table name.
    var keys: [String: EntityKey] = [:]

    /// One entity table and the hierarchy it holds.
    struct EntityDraft {
        let table: TableSnapshot
        /// The root entity's name.
        var name: String
        var isAbstract = false
        /// Concrete sub-entities, from the discriminator's check.
        var subentities: [String] = []
        /// Column → the sub-entity that declares it (a column its check requires for that one only).
        var placement: [String: String] = [:]
        /// Properties by declaring entity.
        var attributes: [String: [Attribute]] = [:]
        var relationships: [String: [Relationship]] = [:]
        /// The snake_case of every property name used in the hierarchy.
        var takenNames: Set<String> = []
        /// What the reading has accounted for; the rest is noted as not expressed.
        var readChecks: Set<String> = []
        var readUniques: Set<[String]> = []
        var readIndexes: Set<String> = []
        var readForeignKeys: Set<[String]> = []
        var readColumns: Set<String> = [SQLName.primaryKeyColumn]
        /// The root's `checks:` and `uniques:` (property names).
        var checks: [String] = []
        var uniques: [[String]] = []
        var indexes: [EntityIndex] = []

        init(table: TableSnapshot, name: String) {
            self.table = table
            self.name = name
        }

        var hasHierarchy: Bool { !subentities.isEmpty }

        /// Whether the discriminator's default names the root (it cannot be renamed).
        var isRootNamedByDiscriminator: Bool { hasHierarchy && !isAbstract }

        /// The root, then the sub-entities.
        var entityNames: [String] { [name] + subentities }

        /// The entity that declares `column`'s property.
        func owner(of column: String) -> String { placement[column] ?? name }
    }

    /// A to-one read from a foreign key, whose inverse is named once every to-one is known.
    struct PendingInverse {
        var holder: String
        var holderRoot: String
        var relationship: String
        var destinationTable: String
        var isOneToOne: Bool
        var deleteRule: DeleteRule
        var element: String
    }

    init(snapshot: SchemaSnapshot) {
        self.snapshot = snapshot
    }

    mutating func note(_ kind: ImportNote.Kind, _ element: String, _ reason: String) {
        notes.append(ImportNote(kind, element, reason))
    }

    // MARK: Tables

    /// Sorts the tables into entity tables (a primary key), join tables (two columns, both in the
    /// primary key or, with no primary key, in a unique index, each a foreign key to an entity's
    /// key), and tables the model cannot hold.
    mutating func classifyTables() {
        let withKey = Set(snapshot.tables.filter { $0.primaryKey != nil }.map(\.name))
        let keyed = withKey.filter { name in !isJoinTable(snapshot.table(named: name)!, keyed: withKey) }
        for table in snapshot.tables {
            if keyed.contains(table.name) {
                guard SQLName.isSQLName(table.name) else {
                    note(.notExpressed, "table \(table.name)", "its name is not an identifier the model can write (letters, digits and _ only)")
                    continue
                }
                drafts[table.name] = EntityDraft(table: table, name: table.name)
            } else if isJoinTable(table, keyed: keyed) {
                joinTables.append(table)
            } else {
                note(.notExpressed, "table \(table.name)", "it has no primary key; every entity table has a key")
            }
        }
    }

    /// Two columns that are the primary key (or a unique index), each with a foreign key to the key
    /// of an entity table.
    private func isJoinTable(_ table: TableSnapshot, keyed: Set<String>) -> Bool {
        guard let key = Self.pairKey(of: table)?.columns else { return false }
        return key.allSatisfy { column in
            table.foreignKeys.contains { key in
                key.columns == [column] && keyed.contains(key.referencedTable) && snapshot.table(named: key.referencedTable)?.primaryKey == key.referencedColumns
            }
        }
    }

    /// The two columns that identify a row of a two-column table, in key order: its primary key on
    /// both, or where it has none, a unique B-tree index on both (no condition, both `NOT NULL`), as
    /// Prisma's implicit many-to-many tables have (`isUniqueIndex`).
    static func pairKey(of table: TableSnapshot) -> (columns: [String], isUniqueIndex: Bool)? {
        let columns = Set(table.columns.map(\.name))
        guard table.columns.count == 2 else { return nil }
        if let key = table.primaryKey { return Set(key) == columns ? (key, false) : nil }
        guard table.columns.allSatisfy({ !$0.isNullable }), let index = table.indexes.first(where: {
            $0.isUnique && $0.method == "btree" && $0.predicate == nil && $0.columns.count == 2 && Set($0.columns) == columns
        }) else { return nil }
        return (index.columns, true)
    }

    func referencedTable(of column: String, in table: TableSnapshot) -> String? {
        table.foreignKeys.first { $0.columns == [column] }?.referencedTable
    }

    // MARK: Entity names

    /// Names each entity table's root entity after its table (`recipe_ingredient` →
    /// `RecipeIngredient`); where the entity's default table name would differ, the entity keeps
    /// its table through `table:`.
    mutating func nameEntities() {
        var taken: Set<String> = []
        for tableName in drafts.keys.sorted() {
            let base = ModelNaming.name(forSQLName: tableName, upper: true) ?? ModelNaming.upperCamel(tableName) ?? "Table"
            drafts[tableName]!.name = ModelNaming.unique(base, in: &taken)
        }
    }

    /// Renames entities after the join tables that name them: a join table's column `<a>_id` names
    /// the entity of the table it references (`post_tags.post_id` → `Post` for the table `posts`),
    /// unless that table's hierarchy already has an entity of that name, or its root is named by
    /// its discriminator.
    mutating func applyJoinTableNames() {
        var taken = Set(drafts.values.flatMap { [$0.name.snakeCased] + $0.subentities.map(\.snakeCased) })
        for join in joinTables.sorted(by: { $0.name < $1.name }) {
            let key = Self.pairKey(of: join)?.columns ?? []
            for (index, column) in key.enumerated() where column.hasSuffix("_id") {
                guard let target = referencedTable(of: column, in: join), var draft = drafts[target] else { continue }
                if index == 1, referencedTable(of: key[0], in: join) == target { continue }
                let stem = String(column.dropLast(3))
                guard !draft.entityNames.contains(where: { $0.snakeCased == stem }), !draft.isRootNamedByDiscriminator,
                      let name = ModelNaming.name(forSQLName: stem, upper: true), !taken.contains(stem) else { continue }
                taken.remove(draft.name.snakeCased)
                taken.insert(stem)
                draft.name = name
                drafts[target] = draft
            }
        }
    }

    /// The entity stored in `table`: its root.
    func entityName(ofTable table: String) -> String? { drafts[table]?.name }

    // MARK: Result

    /// The entities read, each hierarchy's root first.
    func entities() -> [Entity] {
        drafts.keys.sorted().flatMap { tableName -> [Entity] in
            let draft = drafts[tableName]!
            var root = Entity(
                name: draft.name, tableOverride: draft.name.snakeCased == tableName ? nil : tableName, isAbstract: draft.isAbstract,
                attributes: draft.attributes[draft.name] ?? [], relationships: draft.relationships[draft.name] ?? []
            )
            root.checks = draft.checks
            root.uniques = draft.uniques
            root.indexes = draft.indexes
            root.key = keys[tableName]
            return [root] + draft.subentities.map { sub in
                Entity(name: sub, parent: draft.name, attributes: draft.attributes[sub] ?? [], relationships: draft.relationships[sub] ?? [])
            }
        }
    }
}
