import EntityModel
import TypedSQL

/// What an archived link pointed at, so that a restore points it at the same row again.
///
/// A link's number names a row only as long as its table keeps its ids. A step whose mapping or
/// policy fills a table anew (one Ingredient per distinct name, one Status per spelling) numbers
/// its rows again, by first source row: after the app deleted a row in between, the old numbers
/// name other rows. So the archive keeps, next to each archived link, its **target**: a JSON
/// object of the target row's identifying values (every column but its id and its own links, as
/// text), as the pair's source version names them (`{"name": "Pepper"}`).
///
/// A restore into a table the restoring step made (created, then filled by a mapping, a policy or
/// the archive's whole rows) puts back the archived id where that row still is what the link
/// pointed at, else the one row that is; where no row (or more than one) is, the link is not
/// restored, the step's own result stands and the entry stays. A restore into a table the step
/// kept puts back the archived id, as before: its ids did not change (the app may have renamed
/// that row since; it is still the same row). Entries without a target (links to rows with
/// nothing but links, entries of earlier releases) are restored by id.
enum LinkTarget {
    /// The columns that tell `table`'s rows apart, for a link's target: all but the id and links.
    static func identifyingColumns(of table: Table) -> [String] {
        let links = Set(table.foreignKeys.flatMap(\.columns))
        return table.columns.map(\.name).filter { $0 != "id" && !links.contains($0) }
    }

    /// The table a single-column link `column` of `table` points at by its `id` (nil: not such a link).
    static func referencedTable(by column: String, of table: Table, in schema: RelationalSchema) -> Table? {
        reference(by: column, of: table, in: schema).flatMap { $0.column == "id" ? $0.table : nil }
    }

    /// The table a single-column link `column` of `table` points at, and the column it names
    /// there: `id`, or the one column of a natural key (nil: not a link).
    static func reference(by column: String, of table: Table, in schema: RelationalSchema) -> (table: Table, column: String)? {
        guard let key = table.foreignKeys.first(where: { $0.columns == [column] && $0.referencedColumns.count == 1 }),
              let target = schema.table(named: key.referencedTable) else { return nil }
        return (target, key.referencedColumns[0])
    }

    /// For the archive's copy of link `column` of source `table` (the step's first version's names;
    /// the copy reads it as `source`): the SQL of its target's fingerprint, keyed by the names the
    /// entry records: `keys` gives each identifying column of the target table (a source name) and
    /// its key there (nil: every identifying column, under its own name). Nil when the column is no
    /// link or its target has no identifying column.
    static func copy(column: String, of table: Table, in schema: RelationalSchema, names: ArchiveNames, keys: [ArchivePlan.RowKey]?) -> SQL? {
        guard let (target, key) = reference(by: column, of: table, in: schema) else { return nil }
        let keys = keys ?? identifyingColumns(of: target).map { ArchivePlan.RowKey(column: $0, key: $0) }
        guard !keys.isEmpty else { return nil }
        let members = keys.map { key -> (key: String, value: SQL) in
            (key.key, "r.\(id: names.liveColumn(key.column, of: target.name))::text")
        }
        return "(SELECT (\(ArchivePlan.jsonObject(members)))::text FROM \(table: names.liveTable(target.name)) AS r "
            + "WHERE r.\(id: names.liveColumn(key, of: target.name)) = source.\(id: names.liveColumn(column, of: table.name)))"
    }

    /// For a restore of archived link `column` of entry table `table` into `into` (a column of
    /// `intoTable`, the step's destination names) whose target table the step made: the
    /// SQL of the row id to restore, from entry `a` (NULL where no row is what the link pointed
    /// at, and for an archived NULL). Nil where the entry's link is restored by its id.
    ///
    /// - Parameter fingerprint: builds `jsonb_build_object(…)::text` of `text` expressions.
    static func restoredID(column: String, of table: String, entrySchema: RelationalSchema, toEnd: NameTranslation,
                           into: Column, of intoTable: Table, endSchema: RelationalSchema, madeAnew: Set<String>,
                           fingerprint: ([(key: String, value: SQL)]) throws -> SQL) rethrows -> SQL? {
        // (A table keyed otherwise than by an integer id keeps its keys when it is made again from
        // the archive, and no mapping numbers it anew: its links go back as they were.)
        guard MigrationStep.rowIDTypes.contains(into.type), let entryTable = entrySchema.table(named: table), let target = referencedTable(by: column, of: entryTable, in: entrySchema),
              let end = referencedTable(by: into.name, of: intoTable, in: endSchema), madeAnew.contains(end.name) else { return nil }
        var members: [(key: String, value: SQL)] = []
        for key in identifyingColumns(of: target) {
            // A target whose identifying columns the destination does not all have cannot be told.
            guard let (endTable, endColumn) = toEnd.column(key, of: target.name), endTable == end.name else { return nil }
            members.append((key, "r.\(id: endColumn)::text"))
        }
        guard !members.isEmpty else { return nil }
        let rows: SQL = "\(table: end.name)"
        let same: SQL = try "\(fingerprint(members)) = a.target"
        return "(CASE WHEN a.value IS NULL THEN NULL WHEN a.target IS NULL THEN a.value::bigint ELSE coalesce("
            + "(SELECT r.id FROM \(rows) AS r WHERE r.id = a.value::bigint AND \(same)), "
            + "(SELECT pg_catalog.min(r.id) FROM \(rows) AS r WHERE \(same) HAVING pg_catalog.count(*) = 1)) END)"
    }

    /// For a restore of archived link `column` of entry table `table` into `into` (a column of
    /// `intoTable`) that points into a table keyed otherwise than by an integer id (a natural key,
    /// a uuid): the condition that the row under the archived key is still what the link pointed
    /// at — each identifying value its target kept, that the destination still has, unchanged. A
    /// key is no row's identity there: the app renames a handle and gives the old one to someone
    /// else, or deletes a row and makes another under its uuid. Where the row is not the same, the
    /// link is not restored (its entry stays, superseded), never pointed at another row. Nil where
    /// the link is no such link (restored by id, or by ``restoredID``).
    static func sameKeyedTarget(column: String, of table: String, entrySchema: RelationalSchema, toEnd: NameTranslation,
                                into: Column, of intoTable: Table, endSchema: RelationalSchema) -> SQL? {
        guard let entryTable = entrySchema.table(named: table), let (target, _) = reference(by: column, of: entryTable, in: entrySchema),
              let (end, endKey) = reference(by: into.name, of: intoTable, in: endSchema), ArchiveRowKey(end) != nil else { return nil }
        let same = identifyingColumns(of: target).compactMap { key -> SQL? in
            guard let (endTable, endColumn) = toEnd.column(key, of: target.name), endTable == end.name else { return nil }
            return "(a.target::pg_catalog.jsonb ->> \(literal: key)) IS NOT DISTINCT FROM r.\(id: endColumn)::text"
        }
        guard !same.isEmpty else { return nil }
        return "(a.value IS NULL OR a.target IS NULL OR EXISTS (SELECT FROM \(table: end.name) AS r "
            + "WHERE r.\(id: endKey) = a.value\(into.type.cast) AND \(same, joinedBy: " AND ")))"
    }
}
