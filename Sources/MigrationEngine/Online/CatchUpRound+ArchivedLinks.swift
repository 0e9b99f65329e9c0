import EntityModel
import TypedSQL

extension CatchUpRound {
    /// The rows the archived links of the round's needed rows name: for each entry that keeps a
    /// foreign key's value (a to-one a step gives back from the archive: `e1.r21_id`, a to-one of
    /// some version of the steps), the row of the table it refers to, as a needed row of that
    /// table's source table. A step that gives a link back checks that the row it names is there
    /// (``StepArchive``'s reference guards): in the delta as live, so that an app's change to the
    /// holding row during the run does not leave the link out (superseded), where an offline run
    /// gives it back. Rows only referenced are not merged (only changed ones are).
    ///
    /// - Parameter archive: the copy of the live archive the shadow was made with.
    func archivedLinkTargets(in archive: SQL) -> [SQL] {
        // (Archived table, column) → the source table whose rows the column's values name.
        var links: [String: [String: String]] = [:]
        for step in plan.caughtUp {
            for version in step.versions {
                for table in version.relationalSchema().tables {
                    for key in table.foreignKeys where key.columns.count == 1 {
                        // (Rows keyed by an integer id: an archived link is that id's text.)
                        guard let target = sourceTableKeyedByID(named: key.referencedTable) else { continue }
                        links[table.name, default: [:]][key.columns[0]] = target.name
                    }
                }
            }
        }
        return source.tables.filter { ArchiveRowKey($0) == nil }.flatMap { holder -> [SQL] in
            (plan.lineage.names[holder.name] ?? [holder.name]).sorted().flatMap { name -> [SQL] in
                (links[name] ?? [:]).sorted { $0.key < $1.key }.map { column, target -> SQL in
                    "INSERT INTO \(needed) (relation, key) SELECT \(literal: target), ARRAY[a.value]::pg_catalog.text[] FROM \(archive) AS a "
                        + "WHERE a.table_name = \(literal: name) AND a.column_name = \(literal: column) AND NOT a.superseded "
                        + "AND a.value OPERATOR(pg_catalog.~) '^-?[0-9]{1,18}$' "
                        + "AND a.row_id IN (\(keysOf(holder, in: needed, as: [.bigint]))) ON CONFLICT DO NOTHING"
                }
            }
        }
    }

    /// The source table whose rows have `name` along the steps (itself, or a later name of it).
    func sourceTable(named name: String) -> String? {
        if source.table(named: name) != nil { return name }
        return plan.lineage.names.first { $0.value.contains(name) }?.key
    }

    /// The source table whose rows have `name` along the steps, where an integer `id` keys it (an
    /// archived link to one of its rows is then that id's text); nil for any other.
    func sourceTableKeyedByID(named name: String) -> Table? {
        guard let table = sourceTable(named: name).flatMap({ source.table(named: $0) }), ArchiveRowKey(table) == nil,
              table.primaryKey.columns == ["id"] else { return nil }
        return table
    }
}

extension CatchUpRound {
    /// Archived links of the round's needed rows into rows a caught-up step gives back whole (a
    /// removed entity's, which no source table holds): (the link's holder, its name along the
    /// steps, its column, the archived table and that table's definition as archived).
    private func linksIntoArchivedRows() -> [(holder: Table, name: String, column: String, table: Table)] {
        var found: [String: (holder: Table, name: String, column: String, table: Table)] = [:]
        for step in plan.caughtUp {
            for restore in step.archivePlan.restores {
                for table in restore.entrySchema.tables {
                    guard let holder = sourceTableKeyedByID(named: table.name) else { continue }
                    for key in table.foreignKeys where key.columns.count == 1 && key.referencedColumns == ["id"] {
                        guard sourceTable(named: key.referencedTable) == nil, let archived = restore.entrySchema.table(named: key.referencedTable),
                              archived.primaryKey.columns == ["id"] else { continue }
                        found[table.name + "." + key.columns[0]] = (holder, table.name, key.columns[0], archived)
                    }
                }
            }
        }
        return found.keys.sorted().compactMap { found[$0] }
    }

    /// The ids of the archived rows of table `archived` that the archived links of the needed rows
    /// name (a subquery on the live archive's copy `archive`), or nil where none can.
    private func archivedRowsNamed(_ archived: String, in archive: SQL, links all: [(holder: Table, name: String, column: String, table: Table)]) -> SQL? {
        let links = all.filter { $0.table.name == archived }
        guard !links.isEmpty else { return nil }
        let parts: [SQL] = links.map { link in
            "SELECT CASE WHEN l.value OPERATOR(pg_catalog.~) '^-?[0-9]{1,18}$' THEN l.value::pg_catalog.int8 END FROM \(archive) AS l "
                + "WHERE l.table_name = \(literal: link.name) AND l.column_name = \(literal: link.column) AND NOT l.superseded "
                + "AND l.row_id IN (\(keysOf(link.holder, in: needed, as: [.bigint])))"
        }
        return "\(parts, joinedBy: " UNION ")"
    }

    /// The rows of source tables that the archived rows the needed rows' links name refer to (a
    /// step gives such a row back whole only where they are there), as needed rows.
    func archivedRowsTargets(in archive: SQL) -> [SQL] {
        let links = linksIntoArchivedRows()
        return Set(links.map(\.table.name)).sorted().flatMap { name -> [SQL] in
            guard let ids = archivedRowsNamed(name, in: archive, links: links), let table = links.first(where: { $0.table.name == name })?.table
            else { return [] }
            return table.foreignKeys.filter { $0.columns.count == 1 && $0.referencedColumns == ["id"] }.compactMap { key -> SQL? in
                guard let target = sourceTableKeyedByID(named: key.referencedTable)?.name else { return nil }
                return "INSERT INTO \(needed) (relation, key) SELECT \(literal: target), ARRAY[w.key]::pg_catalog.text[] FROM "
                    + "(SELECT CASE WHEN w.column_name = '' THEN w.value::pg_catalog.jsonb ->> \(literal: key.columns[0]) END AS key FROM \(archive) AS w "
                    + "WHERE w.table_name = \(literal: name) AND w.column_name = '' AND NOT w.superseded AND w.row_id IN (\(ids))) AS w "
                    + "WHERE w.key IS NOT NULL ON CONFLICT DO NOTHING"
            }
        }
    }

    /// Copies into the delta's archive `deltaArchive` the entries of the archived rows the needed
    /// rows' links name: the delta's steps give them back, so that the links to them go back as
    /// offline (the merge keeps the shadow's rows and entries of such tables: only changed source
    /// rows are merged).
    func archivedRowsEntries(from archive: SQL, into deltaArchive: SQL) -> [SQL] {
        let links = linksIntoArchivedRows()
        return Set(links.map(\.table.name)).sorted().compactMap { name -> SQL? in
            archivedRowsNamed(name, in: archive, links: links).map { ids in
                "INSERT INTO \(deltaArchive) SELECT a.* FROM \(archive) AS a WHERE a.table_name = \(literal: name) AND a.row_id IN (\(ids))"
            }
        }
    }
}
