import EntityModel
import TypedSQL

/// Proof by the way back: which values of the columns a step drops its way back gives back
/// exactly, checked row by row, so the archive keeps only the others.
///
/// A single step from A to B may drop a column after a mapping or policy read it (Recipes v2 → v3
/// drops each RecipeIngredient's `name` once the policy made an Ingredient of it). When the family
/// has a mapping model for B → A (the **way back**) and one of its in-place entity mappings writes
/// that column with an expression (`name: source.ingredient.name`), the step evaluates that
/// expression — its key paths joined through to-ones, its filter and entity applied — against the
/// tenant's tables once its own mappings, policies and closing stage ran, just before it drops the
/// column; it archives only the rows where the column's value IS DISTINCT FROM what the way back
/// will derive, compared as text of the column's type (how the archive keeps values: NULLs, `-0`
/// and `1.0` against `1.00` are told apart). Every other row gets its value back from the way back
/// itself.
///
/// A proof is made only where the way back's mapping is the only one that writes the column, in
/// place, without a policy. Only what the way back reads as the step leaves it counts, so a proof
/// spares rows only where nothing between the two can change it: no policy of the way back could
/// write the column or run before it; no mapping before it writes a table it reads; and its step
/// moves no data in those tables before its mappings run (a cast, a link or row move). Otherwise
/// it archives every row (``Column/spares``), each with what the way back derived, so that an app
/// change to what the way back reads still wins at the way back. And the expression itself must give the
/// same at the way down: PostgreSQL is asked, once per step, whether every function, operator and
/// cast it uses is IMMUTABLE and it reads only the tenant's tables (``WayBackTrust``); a proof it
/// does not vouch for is dropped before the step runs. The app's changes after the way up, and
/// hooks, are what compare-and-restore is for: an entry's `left_value` is a JSON array of what the
/// way back derived (``fingerprint(_:)``), and the way back restores the entry only where it still
/// derives that.
struct WayBackProof: Sendable, Hashable {
    /// The way back's mapping model file.
    let file: String
    /// The source table (the step's source version's name).
    let table: String
    /// The table its rows are in when the step ends (the step's destination version's name).
    let survivor: String
    /// `<table> AS source LEFT JOIN …`: the table and what the way back's key paths reach, named
    /// as the step's destination version names them (which is how they are named when the step
    /// ends and when its way back starts).
    let from: SQL
    /// The dropped columns it proves, in the table's order.
    let columns: [Column]
    /// What the way back derives of them, as a mapping model of its own (``recordedModel``): the
    /// way up records it with the archive, so that the way down can give back what the way up took
    /// even once the family's file is edited or removed (``RecordedWayBack``).
    var recordedModel: String = ""
    /// Whether the table is keyed otherwise than by an integer id (``ArchiveRowKey``): every row is
    /// archived, by its key.
    var keyed = false

    /// One dropped column and what the way back writes into it.
    struct Column: Sendable, Hashable {
        /// The source column (the step's source version's name).
        let name: String
        /// Whether that mapping selects the row `source` (its filter and entity; never NULL).
        let selects: SQL
        /// What it writes into the column for the row `source`, of the column's type.
        let value: SQL
        /// What it writes into the column for the row `source`, as text of the column's type; NULL
        /// where it does not select the row.
        var derived: SQL { "CASE WHEN \(selects) THEN \(value)::text END" }
        /// The way back's mapping, its entities, and the attribute's expression and filter, as its
        /// file declares them: `RecipeIngredientToRecipeIngredient (RecipeIngredient → RecipeIngredient): name = source.ingredient.name`.
        let declaration: String
        /// The tables (the step's destination names) what it derives reads: the row's own and those
        /// its key paths join; nil when its expression names tables of its own.
        let reads: Set<String>?
        /// Whether the rows the way back gives back are left out of the archive. Not where
        /// something between the two may change what the way back reads (an earlier mapping of
        /// the way back writes a table it reads, its step moves data there first): every row is
        /// then archived, still with what the way back derived at the way up, so that an app
        /// change to what it reads wins as where the proof is made (compare-and-restore).
        var spares = true
        /// The way back's mapping that writes it, and the attribute's expression there.
        var writer: EntityMapping? = nil
        var expression: EntityMapping.AttributeExpression? = nil
    }

    /// The tables the proof reads (the step's destination names), nil: any.
    var reads: Set<String>? {
        columns.reduce(Set<String>() as Set<String>?) { all, column in column.reads.flatMap { reads in all.map { $0.union(reads) } } }
    }

    /// The `column_name` of the marker entry a proved step writes for each table it proves (row
    /// id 0, `value` its ``signature``, `left_value` the way back's file): no column has this name.
    static let markerColumn = "#way back"

    /// What the way back derives, as its mapping model says it: one line per proved column
    /// (``Column/declaration``). The way up records it (the marker entry, with ``recordedModel``);
    /// the way back compares it with what its mapping model says now, and where they differ gives
    /// back the rows the way up did not archive by the recorded declaration (``RecordedWayBack``),
    /// or refuses to run where that cannot be trusted. (Said in the model's terms,
    /// not as the SQL it compiles to, so that a release that compiles it otherwise still agrees.)
    var signature: String {
        columns.map { "\($0.name) ← \($0.declaration)" }.joined(separator: "\n")
    }

    /// What compare-and-restore keeps in an entry's `left_value` for `column`: a JSON array of what
    /// the way back derives (a mapping's derived columns are kept as a JSON object instead).
    static func fingerprint(_ column: Column) -> SQL { "pg_catalog.jsonb_build_array(\(column.derived))::text" }

    /// Whether an entry's `left_value` (as `alias.left_value`) is a ``fingerprint(_:)``.
    static func isFingerprint(_ alias: SQL) -> SQL { "coalesce(\(alias).left_value LIKE '[%', false)" }

    /// The proofs of a single step from `source` to `destination` (adjacent) whose account is
    /// `account`, by its way back `wayBack` (the mapping model of `destination` → `source`): one
    /// per source table with a dropped column the way back writes and the proof can trust.
    static func proofs(of account: StepAccount, from source: ModelVersion, to destination: ModelVersion, wayBack: MappingModel) -> [WayBackProof] {
        guard let names = account.names, let reverse = try? wayBack.differ(across: wayBack.pair(from: destination, to: source)) else { return [] }
        let prover = Prover(wayBack: wayBack, reverse: reverse, destination: destination)
        return source.relationalSchema().tables.compactMap { table in
            guard let survivor = names.survivingTables[table.name] else { return nil }
            var selection = MappingCompiler.Selection()
            // (A table keyed otherwise than by an integer id spares no row: each is archived, by
            // its key, with what the way back derived, so that an app change to what it reads still
            // wins at the way back; the rows a recorded way back fills in are found by an integer id.)
            let keyed = ArchiveRowKey(table) != nil
            let columns = table.columns.compactMap { column -> Column? in
                guard names.survivingColumns[table.name + "." + column.name] == nil,
                      var proved = prover.prove(column, of: table, survivor: survivor, into: &selection) else { return nil }
                if keyed { proved.spares = false }
                return proved
            }
            guard !columns.isEmpty else { return nil }
            return WayBackProof(file: wayBack.file, table: table.name, survivor: survivor, from: selection.from(survivor), columns: columns,
                                recordedModel: recordedModel(of: columns, wayBack: wayBack), keyed: keyed)
        }
    }
}

/// Works out, column by column, whether the way back's expression can be trusted at the step's end.
/// The way back a step relies on changed since the way up proved what it gives back (its mapping
/// model file was edited or removed), and the declaration the way up recorded with the archive
/// cannot stand in for it (``RecordedWayBack``: an earlier release recorded none, PostgreSQL does
/// not vouch for it, or a role other than the migrator may write the archive). Running the step
/// would give back other values than the tenant had in the rows the way up did not archive, so it
/// fails before it changes anything.
struct WayBackChanged: Error, CustomStringConvertible {
    /// The pair the way up crossed, `v2 → v3`.
    let pair: String
    /// The table whose dropped columns it proved.
    let table: String
    /// The way back's mapping model file, as the way up knew it.
    let file: String

    var description: String {
        "the archive of \(pair) keeps the values of \(table)'s dropped columns only in the rows where \(file) would not give them back, "
            + "but what that mapping model derives has changed since (or it is gone), and the way back recorded with the archive cannot be used "
            + "(none recorded, PostgreSQL cannot vouch for it, or a role other than the migrator may write the archive): rolling back would lose values. "
            + "Put \(file) back as it was when the tenant crossed \(pair), roll back, then change it"
    }
}

private struct Prover {
    let wayBack: MappingModel
    /// The way back's own in-place step (its names while it runs).
    let reverse: SchemaDiffer
    let compiler: MappingCompiler
    /// Compiles the way back's expressions against the destination's tables as the step leaves
    /// them: every table and column under the destination version's own name, entities unrenamed.
    let live: MappingCompiler
    let destination: ModelVersion

    init(wayBack: MappingModel, reverse: SchemaDiffer, destination: ModelVersion) {
        self.wayBack = wayBack
        self.reverse = reverse
        self.compiler = MappingCompiler(differ: reverse)
        self.live = MappingCompiler(differ: SchemaDiffer(source: destination, destination: reverse.destination, correspondence: Correspondence()))
        self.destination = destination
    }

    /// The proof of one dropped column of `table` (whose rows are in `survivor` at the step's
    /// end), its joins added to `selection`; nil when the way back does not write it with an
    /// expression that can be trusted.
    func prove(_ column: EntityModel.Column, of table: Table, survivor: String, into selection: inout MappingCompiler.Selection) -> WayBackProof.Column? {
        guard case .attribute = column.origin else { return nil }
        // The way back's mappings that write this column in the rows they keep in place.
        let writers = wayBack.entityMappings.filter { writes($0, column.name, of: table.name) }
        guard writers.count == 1, let mapping = writers.first, mapping.policy == nil, compiler.isInPlace(mapping),
              reverse.old.table(forEntity: destination.rootEntity(of: mapping.source))?.name == survivor,
              let expression = mapping.attributes.first(where: { attributeColumn($0.attribute, of: mapping) == column.name }) else { return nil }
        let reads = tablesRead(by: [expression.expression] + (mapping.filter.map { [$0] } ?? []), from: mapping.source, survivor: survivor)
        // (Where the way back may change what it reads before it derives the value, the step
        // archives every row, each with what the way back derived: an app change still wins.)
        let spares = trustsOthers(around: mapping, reads: reads, table: table.name) && !movesDataBeforeMappings(in: reads)
        var trial = selection
        guard let value = try? live.rewrite(expression.expression, from: mapping.source, into: &trial),
              let conditions = try? live.conditions(of: mapping, into: &trial) else { return nil }
        selection = trial
        let selects: SQL = conditions.isEmpty ? "true" : "((\(conditions, joinedBy: " AND ")) IS TRUE)"
        return WayBackProof.Column(name: column.name, selects: selects, value: "((\(value)))\(column.type.cast)",
                                   declaration: "\(mapping.name) (\(mapping.source) → \(mapping.destination)): \(expression.attribute) = \(expression.expression)"
                                       + (mapping.filter.map { " where \($0)" } ?? ""),
                                   reads: reads, spares: spares, writer: mapping, expression: expression)
    }

    /// The column of `table` (the way back's destination names) that an attribute expression of `mapping` writes.
    private func attributeColumn(_ attribute: String, of mapping: EntityMapping) -> String? {
        let version = reverse.destination
        guard let table = compiler.destinationTable(of: mapping.destination),
              let declaredBy = version.allAttributes(of: mapping.destination).first(where: { $0.attribute.name == attribute })?.declaredBy else { return nil }
        return table.column(withOrigin: .attribute(entity: declaredBy, attribute: attribute))?.name
    }

    /// Whether `mapping` writes `column` of `table` in rows it keeps in place: with an expression,
    /// or by copying an attribute stored elsewhere as it retypes them.
    private func writes(_ mapping: EntityMapping, _ column: String, of table: String) -> Bool {
        guard compiler.destinationTable(of: mapping.destination)?.name == table else { return false }
        return mapping.attributes.contains { attributeColumn($0.attribute, of: mapping) == column }
            || compiler.retypeCopies(of: mapping).contains { $0.destination == column }
    }

    /// The way back's other mappings leave what `mapping` reads and writes alone: none with a
    /// policy runs before it or could write its table; no in-place mapping before it writes a
    /// table it reads (each mapping's first pass runs in order; the way back's value is written
    /// in the first pass of its own).
    private func trustsOthers(around mapping: EntityMapping, reads: Set<String>?, table: String) -> Bool {
        var before = true
        for other in wayBack.entityMappings {
            if other.name == mapping.name { before = false; continue }
            if other.policy != nil, before || compiler.destinationTable(of: other.destination)?.name == table { return false }
            guard before, compiler.isInPlace(other), !other.attributes.isEmpty || compiler.isRetyped(other),
                  let written = reverse.old.table(forEntity: destination.rootEntity(of: other.source))?.name else { continue }
            if reads.map({ $0.contains(written) }) ?? true { return false }
        }
        return true
    }

    /// Whether the way back's step changes data in any of `reads` (destination names; nil: any
    /// table) before its mappings run: a cast, a link or row move. (A discriminator renamed to
    /// the source's entity names is not: the proof selects by the destination's names.)
    private func movesDataBeforeMappings(in reads: Set<String>?) -> Bool {
        let (before, data, _) = reverse.operationsAroundData
        let live = reads.map { Set($0.map(reverse.currentName(ofOldTable:))) }
        return (before + data).contains { operation in
            if case .renameDiscriminatorValue = operation { return false }
            guard operation.movesData else { return false }
            return live.map { !$0.isDisjoint(with: operation.tablesWritten) } ?? true
        }
    }

    /// The destination tables the way back's expressions read from a row of `entity`: its own
    /// table and those its key paths join; nil (any table) when one names tables of its own
    /// (`{schema}`, `{source:Entity}`).
    private func tablesRead(by expressions: [String], from entity: String, survivor: String) -> Set<String>? {
        var tables: Set<String> = [survivor]
        let schema = destination.relationalSchema()
        for expression in expressions {
            if !PlaceholderScan.placeholders(in: expression).isEmpty { return nil }
            for (_, path) in SourceKeyPath.occurrences(in: expression) {
                guard case let .success(resolved) = path.resolve(from: entity, in: destination) else { return nil }
                for hop in resolved.hops {
                    guard let table = schema.table(forEntity: destination.rootEntity(of: hop.destination)) else { return nil }
                    tables.insert(table.name)
                }
            }
        }
        return tables
    }
}

private extension SchemaOperation {
    /// The tables whose rows the operation writes. Every case is listed, none by default: a new
    /// operation must say which rows it writes before a proof can trust it.
    var tablesWritten: Set<String> {
        switch self {
        case let .alterType(table, _, _), let .backfill(table, _, _, _), let .renameDiscriminatorValue(table, _, _), let .deleteEntityRows(table, _):
            return [table]
        case let .dropLinksTo(storage, _, table, _):
            return [storage.table, table]
        case let .moveLinks(move):
            return [move.from.table, move.to.table]
        case let .moveRows(move):
            return Set([move.fromTable, move.toTable] + move.references.map(\.table))
        case let .enumChange(change):
            guard case let .rebuild(_, _, columns) = change else { return [] }
            return Set(columns.map(\.table))
        case .setComment, .sequenceChange:
            return []
        case .dropConstraint, .dropIndex, .renameTable, .renameColumn, .renameConstraint, .renameIndex, .createTable, .addColumn, .setDefault,
             .setNullable, .dropColumn, .dropTable, .addForeignKey, .replaceForeignKey, .addUnique, .addPrimaryKey, .addCheck, .createIndex, .resetIdentity:
            return []
        }
    }
}

private extension LinkStorage {
    var table: String {
        switch self {
        case let .foreignKey(table, _), let .joinTable(table, _, _): return table
        }
    }
}
