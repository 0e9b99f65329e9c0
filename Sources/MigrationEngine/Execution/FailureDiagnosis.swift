import EntityModel
import LibPQ
import TypedSQL

/// Why a step failed on a tenant's data, found with a few queries after the failure: the column
/// that could not take a value, the value, and a row that holds it.
///
/// A narrowing (`ALTER COLUMN priority TYPE smallint USING priority::smallint`) stops at the first
/// value that does not fit, and PostgreSQL names neither the column nor the row
/// (`ERROR 22003: smallint out of range`). Once the tenant's transaction is rolled back, the
/// diagnosis finds the type change whose cast the failed statement made (the change itself, or
/// the archive's copy of the values it changes), and tries the same cast on the
/// tenant's rows: it halves the range of ids that holds a failing row until one id is left (a
/// few dozen short queries, each in a savepoint of one read-only transaction, and never a query
/// per row), then reads that row's value. It only reads, and it runs once, for the failure the
/// runner reports.
///
/// It covers the type changes of inferred and mapped steps, in the step that failed first on the
/// way (the rolled-back tenant is at that step's source version); for any other failure it
/// finds nothing and the error is reported as PostgreSQL gave it.
public struct FailureDiagnosis: Sendable, Hashable, CustomStringConvertible {
    /// The tenant's schema.
    public var schema: String
    /// The table and column as the step names them (after its renames).
    public var table: String
    public var column: String
    /// The type the column could not become.
    public var type: SQLType
    /// A row holding a value that does not fit (the lowest such id).
    public var rowID: Int64
    /// That value, as text (nil for NULL), shortened past 80 characters.
    public var value: String?
    /// The failure's SQLSTATE (`22003`, `22P02`, …).
    public var sqlState: SQLState?
    /// What to do about it, where the cause is known (nil: change the value, or map it).
    public var remedy: String?

    public var description: String {
        let shown = value.map { "\"\($0)\"" } ?? "NULL"
        return "row id \(rowID) of \(schema).\(table) holds \(shown) in \(column), which does not fit \(type.rawValue)"
    }

    /// The runner's hook, after a step failed and the tenant's transaction was rolled back:
    /// `error` annotated with the diagnosis (``annotating(_:)``) when it is a data error that a
    /// type change of `step` explains; otherwise `error` as it is.
    public static func explaining(_ error: any Error, in step: MigrationStep, schema: String, on connection: Connection) -> any Error {
        guard let failure = error as? PQError, let diagnosis = diagnose(failure, in: step, schema: schema, on: connection) else { return error }
        return diagnosis.annotating(failure)
    }

    /// The diagnosis of `error`, a failure of `step` in `schema`, or nil when it is not a data
    /// error of one of the step's type changes, or no row explains it.
    public static func diagnose(_ error: PQError, in step: MigrationStep, schema: String, on connection: Connection) -> FailureDiagnosis? {
        guard error.sqlState?.errorClass == "22" else { return nil }
        let operations = schemaOperations(of: step)
        for (index, operation) in operations.enumerated() {
            if case let .enumChange(rebuild) = operation,
               let found = removedEnumValue(rebuild, before: operations[..<index], error: error, schema: schema, on: connection) {
                return found
            }
            guard case let .alterType(table, column, type) = operation else { continue }
            // The rolled-back tenant holds the names from before the step's renames.
            let (oldTable, oldColumn) = namesBefore(operations[..<index], table: table, column: column)
            // The failed statement casts the column to the type: the type change itself, or the
            // archive's copy of the values it changes, which runs first.
            let casts = [column, oldColumn].flatMap { column -> [String] in
                [("\(id: column)::\(type: type)" as SQL).text(schema: schema),
                 ("ALTER COLUMN \(id: column) TYPE \(type: type) USING \(id: column)" as SQL).text(schema: schema)]
            }
            guard error.statement.map({ statement in casts.contains { statement.contains($0) } }) ?? true else { continue }
            let probe = CastProbe(schema: schema, table: oldTable, column: oldColumn, type: type, sqlState: error.sqlState)
            guard let (rowID, value) = try? probe.firstFailingRow(on: connection) else { continue }
            return FailureDiagnosis(schema: schema, table: table, column: column, type: type, rowID: rowID,
                                    value: value.map { $0.count > 80 ? String($0.prefix(80)) + "…" : $0 }, sqlState: error.sqlState)
        }
        return nil
    }

    /// `error` with the table and column it failed on, and the row and its value as the detail
    /// (before the server's own detail, if it sent one). The SQLSTATE stays the server's.
    public func annotating(_ error: PQError) -> PQError {
        var annotated = error
        annotated.schema = schema
        annotated.table = table
        annotated.column = column
        let shown = value.map { "\"\($0)\"" } ?? "NULL"
        annotated.detail = "row id \(rowID) holds \(shown), which does not fit \(type.rawValue)" + (remedy.map { ": \($0)" } ?? "")
            + (error.detail.map { "; \($0)" } ?? "")
        return annotated
    }

    /// The step's schema operations in the order they run.
    private static func schemaOperations(of step: MigrationStep) -> [SchemaOperation] {
        step.program.operations
    }

    /// `table` and `column` as they were named before `operations` (the renames among them) ran.
    private static func namesBefore(_ operations: ArraySlice<SchemaOperation>, table: String, column: String) -> (String, String) {
        var (table, column) = (table, column)
        for operation in operations.reversed() {
            switch operation {
            case let .renameColumn(owner, from, to) where owner == table && to == column: column = from
            case let .renameTable(from, to) where to == table: table = from
            default: break
            }
        }
        return (table, column)
    }
}

/// The failed cast, tried again on ranges of a table's ids.
private struct CastProbe {
    let schema: String
    let table: String
    let column: String
    let type: SQLType
    /// The failure to find again: another error is not the one being diagnosed.
    let sqlState: SQLState?

    /// The lowest id whose value the cast rejects, with that value as text; nil when none does.
    func firstFailingRow(on connection: Connection) throws -> (Int64, String?)? {
        let table: SQL = ("\(table: self.table)" as SQL).naming(schema: schema), column: SQL = "\(id: self.column)"
        return try connection.transaction { connection -> (Int64, String?)? in
            // Read-only, and never queued for long behind another session's lock.
            try connection.execute("SET TRANSACTION READ ONLY")
            try connection.execute("SET LOCAL lock_timeout = '2s'")
            guard let bounds = try connection.execute("SELECT pg_catalog.min(id)::int8, pg_catalog.max(id)::int8 FROM \(table)").first,
                  var low = try bounds.decode(Int64?.self, at: 0), var high = try bounds.decode(Int64?.self, at: 1) else { return nil }
            func fails(_ low: Int64, _ high: Int64) throws -> Bool {
                if let length = type.characterLength {
                    // Assigned, not cast: a value fails when more than its trailing spaces do not fit.
                    return try connection.execute("""
                        SELECT EXISTS (SELECT FROM \(table) WHERE id BETWEEN $1 AND $2 \
                        AND pg_catalog.char_length(pg_catalog.rtrim(\(column)::pg_catalog.text, ' ')) > \(int: length))
                        """, [low, high]).first?.decode(Bool.self, at: 0) ?? false
                }
                do {
                    _ = try connection.savepoint {
                        try $0.execute("SELECT pg_catalog.count((\(column))::\(type: type)) FROM \(table) WHERE id BETWEEN $1 AND $2", [low, high])
                    }
                    return false
                } catch let error as PQError where error.sqlState == sqlState {
                    return true
                }
            }
            guard try fails(low, high) else { return nil }
            while low < high {
                let middle = low + (high - low) / 2
                if try fails(low, middle) { high = middle } else { low = middle + 1 }
            }
            let value = try connection.execute("SELECT (\(column))::text FROM \(table) WHERE id = $1", [low]).first?.decode(String?.self, at: 0)
            return (low, value ?? nil)
        }
    }
}
