import EntityModel
import LibPQ
import TypedSQL

/// `--rehearse`: the tenant's tables before its migration, and after it went to the target and
/// back, compared row by row.
///
/// Rows are compared as `jsonb` (keys sorted, so a column that moved to the end of the table after
/// a drop and re-add still compares equal), set-based: the rows before are copied into a temporary
/// table, and one `EXCEPT ALL` per direction finds a row that differs. The temporary table lives in
/// the tenant's transaction, which a rehearsal always rolls back.
struct Rehearsal {
    /// The tables compared, unqualified: those of the tenant's version, without the tool's own.
    let tables: [String]
    let schema: String

    static let snapshotTable: SQL = "pg_temp._tm_rehearsal_before"

    init(version: ModelVersion, schema: String) {
        self.tables = version.relationalSchema().tables.map(\.name).filter { !SQLName.isToolName($0) }.sorted()
        self.schema = schema
    }

    /// Copies every row of every table aside.
    func takeSnapshot(on connection: Connection) throws {
        try connection.execute("CREATE TEMP TABLE _tm_rehearsal_before (tbl text NOT NULL, item jsonb NOT NULL) ON COMMIT DROP")
        for table in tables {
            try connection.execute(
                "INSERT INTO \(Self.snapshotTable) SELECT $1, pg_catalog.to_jsonb(t) FROM \(schema: schema, table: table) AS t", [table]
            )
        }
    }

    /// The first difference between the tables now and the snapshot, or nil when they are equal.
    func firstDifference(on connection: Connection) throws -> RehearsalDifference? {
        for table in tables {
            let now: SQL = "SELECT pg_catalog.to_jsonb(t) FROM \(schema: schema, table: table) AS t"
            let before: SQL = "SELECT item FROM \(Self.snapshotTable) WHERE tbl = $1"
            if let row = try connection.execute("(\(before)) EXCEPT ALL (\(now)) LIMIT 1", [table]).first {
                return RehearsalDifference(table: table, before: try row.decode(String.self, at: 0), after: nil)
            }
            if let row = try connection.execute("(\(now)) EXCEPT ALL (\(before)) LIMIT 1", [table]).first {
                return RehearsalDifference(table: table, before: nil, after: try row.decode(String.self, at: 0))
            }
        }
        return nil
    }
}

/// A row that the way there and back did not give back as it was.
public struct RehearsalDifference: Sendable, Codable, Hashable, CustomStringConvertible {
    public var table: String
    /// The row as it was before (as JSON), when it is missing or changed afterwards.
    public var before: String?
    /// A row afterwards (as JSON) that was not there before.
    public var after: String?

    public var description: String {
        if let before { return "table \(table): row \(before) did not come back" }
        return "table \(table): row \(after ?? "?") was not there before"
    }
}

/// A rehearsal found that going to the target and back does not give the tenant's data back.
public struct RehearsalFailed: Error, Sendable, CustomStringConvertible {
    public var difference: RehearsalDifference
    public var from: String
    public var to: String

    public var description: String {
        "rehearsal \(from) → \(to) → \(from) did not restore the data: \(difference)"
    }
}
