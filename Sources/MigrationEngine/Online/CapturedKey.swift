import EntityModel
import TypedSQL

/// How an online run spells a row's key in its change log and change sets (`text[]`, one element
/// per key column, in the key's order), and how it finds the row again: each element cast back to
/// its column's type (`t.code = (c.key[1])::character(2)`), so that the key's own index serves, for
/// integers as for text, `uuid`, `char(n)`, `numeric`, `date` or timestamps.
///
/// The text of a key column is the same whoever writes it (the app's capture trigger, under the
/// app's session settings, or the migrator's statements under its own, `MigratorSession`): the
/// column's `::text` where that does not depend on settings (integers, text, `varchar`, `uuid`,
/// `numeric`, `citext`, `boolean`: ``isPlainText(_:)``), else the text of the column's JSON value
/// (`to_jsonb(x) #>> '{}'`: ISO dates and timestamps whatever `DateStyle`, a `char(n)` with its
/// padding), as the trigger's generic path reads `to_jsonb(OLD) ->> 'column'`. A key never holds
/// NULL (a primary key), and a TRUNCATE is logged as the empty array.
public enum CapturedKey {
    /// Whether a key column of `type` is logged as its `::text` (its text is the same under any
    /// session settings, and equals its JSON value's).
    public static func isPlainText(_ type: SQLType) -> Bool {
        let name = type.rawValue
        return MigrationStep.rowIDTypes.contains(type) || ["text", "uuid", "citext", "boolean", "numeric"].contains(name)
            || name.hasPrefix("character varying") || name.hasPrefix("varchar") || name.hasPrefix("numeric(")
    }

    /// Whether an online run can log and find again a row keyed by a column of `type`: its text,
    /// however written, casts back to the same value (``isPlainText(_:)``, `char(n)`, `date`,
    /// `time` and timestamps). Others (an enum of the model, floating point, `bytea`, `jsonb`,
    /// `interval`, …) are refused (``MigrationPlan/onlineKeyRefusal``).
    public static func isCaptured(_ type: SQLType) -> Bool {
        guard type.enumName == nil else { return false }
        let name = type.rawValue
        return isPlainText(type) || name == "date" || name.hasPrefix("character(") || name.hasPrefix("char(") || name == "character"
            || name == "bpchar" || name.hasPrefix("timestamp") || name.hasPrefix("time ") || name == "time" || name.hasPrefix("time(")
    }

    /// The text of `value`, a key column of `type`, as the change log holds it.
    static func text(of value: SQL, _ type: SQLType) -> SQL {
        isPlainText(type) ? "\(value)::pg_catalog.text" : "(pg_catalog.to_jsonb(\(value)) OPERATOR(pg_catalog.#>>) '{}')"
    }

    /// The text of a `text[]` of `elements` (SQL text values, none NULL) as `array_out` writes it
    /// (`{1,"x,y"}`: an element quoted where it is empty, `NULL` in any case, or holds a brace, a
    /// quote, a comma, a backslash or white space, a quote or backslash in it escaped), by IMMUTABLE
    /// functions only (`array_out` is STABLE, which Citus does not run in an INSERT … SELECT).
    static func arrayText(_ elements: [SQL]) -> SQL {
        let quoted: [SQL] = elements.map { element in
            "(CASE WHEN \(element) = '' OR pg_catalog.upper(\(element)) = 'NULL' OR \(element) OPERATOR(pg_catalog.~) E'[{}\",\\\\\\\\ \\t\\n\\r\\f\\v]' "
                + "THEN '\"' OPERATOR(pg_catalog.||) pg_catalog.replace(pg_catalog.replace(\(element), E'\\\\', E'\\\\\\\\'), '\"', E'\\\\\"') OPERATOR(pg_catalog.||) '\"' "
                + "ELSE \(element) END)"
        }
        return "('{' OPERATOR(pg_catalog.||) \(quoted, joinedBy: " OPERATOR(pg_catalog.||) ',' OPERATOR(pg_catalog.||) ") OPERATOR(pg_catalog.||) '}')"
    }

    /// `ARRAY[<text of alias.a>, …]`: the key of row `alias` of `table` as the change log holds it.
    static func array(_ alias: SQL, _ columns: [Column]) -> SQL {
        let parts: [SQL] = columns.map { text(of: "\(alias).\(id: $0.name)", $0.type) }
        return "ARRAY[\(parts, joinedBy: ", ")]::pg_catalog.text[]"
    }

    /// Element `index` (from 0) of a change set's key `c.key`, cast to `type`, where the entry is
    /// of `relation` (NULL elsewhere: a CASE, so that no other table's key is ever cast, whatever
    /// order the plan checks conditions in).
    static func element(_ index: Int, as type: SQLType, of relation: String, alias: SQL = "c", in column: String = "key") -> SQL {
        "(CASE WHEN \(alias).relation = \(literal: relation) THEN (\(alias).\(id: column)[\(int: index + 1)])\(type.cast) END)"
    }
}

/// `SELECT <c.key[1] as a's type>, … FROM <set> AS c WHERE c.relation = 'table'`: the keys of
/// `table`'s rows in a change set, typed as `table`'s key columns (or as `types`, where they are
/// compared with another table's columns that carry them).
func keysOf(_ table: Table, in set: SQL, as types: [SQLType]? = nil) -> SQL {
    let key = table.primaryKey.columns
    let parts: [SQL] = key.indices.map { index in
        let type = types?[index] ?? table.column(named: key[index])?.type ?? .bigint
        return CapturedKey.element(index, as: type, of: table.name)
    }
    return "SELECT \(parts, joinedBy: ", ") FROM \(set) AS c WHERE c.relation = \(literal: table.name)"
}

/// The key of row `alias` of `table` as the change log holds it (``CapturedKey/array(_:_:)``).
func keyArray(_ alias: SQL, of table: Table) -> SQL {
    CapturedKey.array(alias, table.primaryKey.columns.compactMap { table.column(named: $0) })
}

/// `(alias.a, alias.b)`.
func keyTuple(_ alias: SQL, _ columns: [String]) -> SQL {
    let parts: [SQL] = columns.map { "\(alias).\(id: $0)" }
    return "(\(parts, joinedBy: ", "))"
}
