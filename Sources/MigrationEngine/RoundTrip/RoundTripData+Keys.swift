import EntityModel
import TypedSQL

/// Synthetic values for keys as adopted schemas have them (issue 34): a `uuid` or text `id`, and the
/// attributes of a natural or composite key, which must be NOT NULL and unique; and values of the
/// PostgreSQL types such keys (and other attributes) use most: `numeric(p,s)`, `date`,
/// `character varying(n)` and `character(n)`.
extension RoundTripData {
    /// The value of the model's `id` column of row `i`: the row's number for an integer id, a uuid
    /// drawn from it, or its number as text.
    static func primaryKeyValue(_ column: Column, row i: SQL, md5: SQL) -> SQL {
        if MigrationStep.rowIDTypes.contains(column.type) { return i }
        if column.type == .uuid { return "\(md5)::uuid" }
        return "\(i)::text::\(type: column.type)"
    }

    /// A value of a PostgreSQL type the model names by its spelling, or nil where none is made here.
    /// `unique` values (a key's, a unique attribute's) come from the row's number `i`.
    static func postgreSQLTypeValue(_ column: Column, row i: SQL, hash h: SQL, md5: SQL, unique: Bool) -> SQL? {
        let raw = column.type.rawValue
        if let (precision, scale) = numericModifiers(raw) {
            // Whole digits as the type allows (at most 6), the scale's fraction digits (at most 3).
            let whole = min(precision - scale, 6), fraction = min(scale, 3)
            let limit = Int64(pow10(whole + fraction))
            guard limit > 1 else { return nil }
            let digits: SQL = unique ? "(\(i) % \(int: Int(limit)))" : "(\(h) % \(int: Int(limit)))"
            let sign: SQL = unique ? "1" : "(CASE WHEN \(h) % 3 = 0 THEN -1 ELSE 1 END)"
            return "(\(sign) * \(digits)::numeric / \(int: Int(pow10(fraction))))::\(type: column.type)"
        }
        if raw == "date" { return "('2000-01-01'::date + (\(unique ? i : "(\(h) % 20000)" as SQL))::integer)" }
        if raw.hasPrefix("character") {
            // A unique value is the row's number (a length of at least its digits); else one character.
            return unique ? "\(i)::text::\(type: column.type)" : "pg_catalog.left(\(md5), 1)::\(type: column.type)"
        }
        return nil
    }

    private static func numericModifiers(_ raw: String) -> (Int, Int)? {
        guard raw.hasPrefix("numeric("), raw.hasSuffix(")") else { return nil }
        let parts = raw.dropFirst("numeric(".count).dropLast().split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard let precision = parts.first else { return nil }
        return (precision, parts.count > 1 ? parts[1] : 0)
    }

    private static func pow10(_ n: Int) -> Int { (0..<max(n, 0)).reduce(1) { value, _ in value * 10 } }

    /// What names row `alias` of `table` for a pseudo-random draw: its `id`, or (a table keyed by
    /// properties) its physical place, which is stable while the rows are made.
    static func rowNumber(of table: Table, _ alias: SQL) -> SQL {
        table.column(named: "id") != nil ? "\(alias).id" : "\(alias).ctid"
    }
}
