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
