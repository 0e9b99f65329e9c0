import EntityModel
import LibPQ
import TypedSQL

/// A way down narrows a numeric's integer digits (`numeric(8,1)` → `numeric(8,3)`, 7 → 5) and some
/// rows hold a value the narrower type cannot hold, with no archived value to give back: rows made
/// or changed since the way up (or a way up run without the archive). Numeric value out of range
/// (SQLSTATE 22003).
public struct NarrowedValuesDoNotFit: Error, Sendable, CustomStringConvertible {
    public let step: String
    /// `Entity.attribute`.
    public let property: String
    public let table: String
    public let column: String
    /// The type the way down gives the column (`numeric(8,3)`).
    public let type: String
    public let rowCount: Int
    /// The first few rows concerned: their ids, or the keys of a table keyed otherwise (``ArchiveRowKey``'s text).
    public let sampleRows: [String]

    static let sampleSize = 5

    public var description: String {
        "step \(step) gives \(property) (\(table).\(column)) the type \(type) back, but \(rowCount) row\(rowCount == 1 ? "" : "s") of \(table) "
            + "(\(sampleRows.joined(separator: ", "))\(rowCount > sampleRows.count ? ", …" : "")) hold a value it cannot hold, "
            + "with no archived value to give back (rows made or changed since the way up): numeric value out of range [SQLSTATE 22003]"
    }
}

extension StepArchive {
    /// Once the step gave back what the archive held: gives each numeric column a way down narrows
    /// in its integer digits (``ArchiveNames/narrowedFromArchive``, held meanwhile in a type wide
    /// enough for both) its type, unless some row holds a value that type cannot hold; then it
    /// fails (``NarrowedValuesDoNotFit``) naming those rows, and the tenant's transaction is rolled
    /// back. One query per such column, and the `ALTER TABLE` queued with the next round trip.
    func narrowRestoredValues() throws {
        for narrowed in names.narrowedFromArchive ?? [] {
            guard let digits = TypeChange.numericDigits(narrowed.type) else { continue }
            let table: SQL = "\(table: narrowed.table)", column: SQL = "t.\(id: narrowed.column)"
            let row: SQL = ArchiveRowKey(narrowed.table, in: destinationSchema)?.text(of: "t") ?? "t.id::text"
            // (NaN fits any numeric(p,s); rounded to the type's decimals, a value must stay below 10^(p-s).)
            let missing = try connection.execute(
                "SELECT \(row), pg_catalog.count(*) OVER () FROM \(table) AS t WHERE \(column) <> 'NaN'::numeric "
                    + "AND pg_catalog.abs(pg_catalog.round(\(column), \(int: digits.after))) >= pg_catalog.power(10::numeric, \(int: digits.before)) "
                    + "ORDER BY 1 LIMIT \(int: NarrowedValuesDoNotFit.sampleSize)",
                schema: schema)
            if let first = missing.first {
                throw NarrowedValuesDoNotFit(step: "\(from) → \(to)", property: narrowed.property, table: narrowed.table, column: narrowed.column,
                                             type: narrowed.type.rawValue, rowCount: Int(try first.decode(Int64.self, at: 1)),
                                             sampleRows: try missing.map { try $0.decode(String.self, at: 0) })
            }
            for statement in SchemaOperation.alterType(table: narrowed.table, column: narrowed.column, to: narrowed.type).statements {
                try connection.sendWithNextRoundTrip(Statement(statement, schema: schema))
            }
        }
    }
}
