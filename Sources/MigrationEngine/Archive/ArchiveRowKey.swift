import EntityModel
import TypedSQL

/// How the archive finds a row of a table keyed otherwise than by an integer `id` (a `uuid` or
/// text `id`, a natural or composite key): by its key as it is, in the entry's `row_key`, `row_id`
/// being 0 — a key of one column as that column's text (`DE`, `6f1c…`), a composite key as a
/// `text[]`, written as its text, of each key column's text in the key's order
/// (`{6f1c…,"a\"b"}`). The text of every key type casts back to the same value under the session
/// settings the migrator fixes (`MigratorSession`), and an array's text quotes whatever its
/// elements hold, so any characters come back. (One column needs no array: its match then uses
/// only the type's own input function, IMMUTABLE for uuid, text and numeric, which Citus accepts
/// in an `UPDATE`, where it refuses the STABLE `array_in`.)
///
/// A table keyed by an integer `id` has no such key (nil): its entries keep the row by `row_id`,
/// in the statements they always had.
struct ArchiveRowKey: Sendable, Hashable {
    /// The key's columns, in the key's order, with their types.
    let columns: [Column]

    /// The key of `table`, or nil when an integer `id` keys it (``MigrationStep/rowIDTypes``) or it
    /// has no key the archive can use.
    init?(_ table: Table) {
        let names = table.primaryKey.columns
        if names == [SQLName.primaryKeyColumn], let id = table.column(named: SQLName.primaryKeyColumn), MigrationStep.rowIDTypes.contains(id.type) {
            return nil
        }
        let columns = names.compactMap { table.column(named: $0) }
        guard !columns.isEmpty, columns.count == names.count else { return nil }
        self.columns = columns
    }

    /// The key of the table named `name` in `schema` (nil: an integer `id`, or no such table).
    init?(_ name: String?, in schema: RelationalSchema) {
        guard let name, let table = schema.table(named: name) else { return nil }
        self.init(table)
    }

    /// The `row_key` of row `row`, each key column named as `live` says it is now.
    func text(of row: SQL, live: (String) -> String = { $0 }) -> SQL {
        let each = columns.map { "\(row).\(id: live($0.name))::text" as SQL }
        return each.count == 1 ? each[0] : "ARRAY[\(each, joinedBy: ", ")]::text"
    }

    /// Whether row `row` (of a table with this key) is the one entry `entry` keeps: each key column
    /// equal to the entry's text of it, cast to the column's type.
    func matches(_ row: SQL, entry: SQL) -> SQL {
        if columns.count == 1 { return "\(row).\(id: columns[0].name) = \(entry).row_key\(columns[0].type.cast)" }
        let each = columns.enumerated().map { index, column -> SQL in
            "\(row).\(id: column.name) = (\(entry).row_key::pg_catalog.text[])[\(int: index + 1)]\(column.type.cast)"
        }
        return "(\(each, joinedBy: " AND "))"
    }

    /// `row` is `entry`'s row: by this key where `table` has one, else by `row.id = entry.row_id`.
    static func rowIs(_ row: SQL, of table: Table?, entry: SQL) -> SQL {
        guard let table, let key = ArchiveRowKey(table) else { return "\(row).id = \(entry).row_id" }
        return key.matches(row, entry: entry)
    }
}
