import EntityModel
import LibPQ
import TypedSQL

extension StepArchive {
    /// Once the step gave back what the archive held: makes each new required column without a
    /// default that the step added nullable (``ArchiveNames/requiredFromArchive``, a way down whose
    /// way up dropped and archived it) NOT NULL, unless some row has no value; then it fails
    /// (``RequiredValuesMissing``) naming those rows, and the tenant's transaction is rolled back.
    /// One query per such column, and the `ALTER TABLE` queued with the next round trip.
    func requireRestoredValues() throws {
        for required in names.requiredFromArchive {
            let table: SQL = "\(table: required.table)", column: SQL = "\(id: required.column)"
            // (A table keyed otherwise than by an integer id names its rows by their keys.)
            let key = ArchiveRowKey(required.table, in: destinationSchema)
            let row: SQL = key?.text(of: "t") ?? "t.id"
            let missing = try connection.execute(
                "SELECT \(row), pg_catalog.count(*) OVER () FROM \(table) AS t WHERE t.\(column) IS NULL ORDER BY 1 LIMIT \(int: RequiredValuesMissing.sampleSize)",
                schema: schema)
            if let first = missing.first {
                let count = Int(try first.decode(Int64.self, at: 1))
                throw key == nil
                    ? RequiredValuesMissing(step: "\(from) → \(to)", property: required.property, table: required.table, column: required.column,
                                            rowCount: count, sampleIDs: try missing.map { try $0.decode(Int64.self, at: 0) })
                    : RequiredValuesMissing(step: "\(from) → \(to)", property: required.property, table: required.table, column: required.column,
                                            rowCount: count, sampleIDs: [], sampleKeys: try missing.map { try $0.decode(String.self, at: 0) })
            }
            try connection.sendWithNextRoundTrip(Statement("ALTER TABLE \(table) ALTER COLUMN \(column) SET NOT NULL", schema: schema))
        }
    }
}

/// A way down adds back a required attribute without a default, and some rows have no archived
/// value for it: rows made after the way up that dropped it (or a way up run with `--no-archive`).
public struct RequiredValuesMissing: Error, Sendable, CustomStringConvertible {
    public let step: String
    /// `Entity.attribute`.
    public let property: String
    public let table: String
    public let column: String
    public let rowCount: Int
    /// The first few ids of the rows concerned.
    public let sampleIDs: [Int64]
    /// Of a table keyed otherwise than by an integer id, the first few keys instead (``ArchiveRowKey``'s text).
    public var sampleKeys: [String] = []

    static let sampleSize = 5

    private var samples: [String] { sampleKeys.isEmpty ? sampleIDs.map(String.init) : sampleKeys }

    public var description: String {
        "step \(step) adds back \(property) (\(table).\(column)), which is required and has no default value, but the archive holds no value "
            + "for \(rowCount) row\(rowCount == 1 ? "" : "s") of \(table) (\(sampleKeys.isEmpty ? "ids" : "keys") \(samples.joined(separator: ", "))"
            + "\(rowCount > samples.count ? ", …" : "")): rows made since the way up, or a way up run without the archive; "
            + "give them a value, or give the attribute a default value"
    }
}
