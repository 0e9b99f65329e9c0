import EntityModel
import LibPQ
import TypedSQL

/// The step's closing operations — NOT NULL, drops, constraints, indexes — with every constraint
/// violation turned into a ``ConstraintViolation`` that names the entity, a row id and the
/// constraint (Core Data's validation pass).
struct ValidationStage {
    /// The step's destination schema, which names the entity of a table.
    let destination: RelationalSchema
    let schema: String

    /// All at once first, in one round trip inside a savepoint; only when a constraint is violated,
    /// again one by one (the savepoint was rolled back), each in a savepoint of its own, to name the row.
    func run(_ statements: [StepProgram.Statement], on connection: Connection, statistics: inout StepStatistics) throws {
        let pipelined = statements.map { Statement($0.sql, schema: schema) }
        do {
            try connection.transactionPipeline(pipelined)
            statistics.statements += statements.count
            return
        } catch let error as PQError where error.sqlState?.errorClass == "23" && pipelined.contains(where: { $0.sql == error.statement }) {
            // One of them violated a constraint, and they were rolled back: find which one, and a row, below.
        }
        for statement in statements {
            do {
                _ = try connection.savepoint { try $0.execute(statement.sql, schema: schema) }
                statistics.statements += 1
            } catch let error as PQError where error.sqlState?.errorClass == "23" {
                throw diagnose(error, statement.operation, on: connection)
            }
        }
    }

    /// Finds a row that breaks the constraint (the failed statement was rolled back to its savepoint).
    private func diagnose(_ error: PQError, _ operation: SchemaOperation, on connection: Connection) -> any Error {
        var table = error.table ?? ""
        var constraint = error.constraint ?? ""
        var column = error.column
        var query: SQL?
        if let keyed = keyedDiagnosis(error, operation, on: connection) { return keyed }
        switch operation {
        case let .setNullable(name, required, false):
            (table, column) = (name, required)
            constraint = "NOT NULL on \(required)"
            query = "SELECT id FROM \(table: name) WHERE \(id: required) IS NULL ORDER BY id LIMIT 1"
        case let .addUnique(name, unique):
            table = name
            constraint = unique.name
            query = "SELECT pg_catalog.max(id) FROM \(table: name) GROUP BY \(ids: unique.columns) HAVING pg_catalog.count(*) > 1 ORDER BY 1 LIMIT 1"
        case let .addForeignKey(name, foreignKey), let .replaceForeignKey(name, foreignKey):
            table = name
            constraint = foreignKey.name
            let column = foreignKey.columns[0]
            query = "SELECT t.id FROM \(table: name) AS t WHERE t.\(id: column) IS NOT NULL AND NOT EXISTS "
                + "(SELECT 1 FROM \(table: foreignKey.referencedTable) AS r WHERE r.id = t.\(id: column)) ORDER BY t.id LIMIT 1"
        case let .addCheck(name, check):
            table = name
            constraint = check.name
            query = "SELECT id FROM \(table: name) WHERE NOT (\(check.condition.sql)) ORDER BY id LIMIT \(int: ConstraintViolation.rowsNamed)"
        default:
            break
        }
        let rowIDs = query.flatMap { try? connection.execute($0, schema: schema).compactMap { try $0.decode(Int64?.self, at: 0) } } ?? []
        let rowID = rowIDs.first
        var entity = entityName(ofTable: table)
        if let rowID, destination.table(named: table)?.column(withOrigin: .discriminator) != nil,
           let concrete = try? connection.execute("SELECT entity FROM \(table: table) WHERE id = \(bind: .integer(rowID))", schema: schema)
            .first?.decode(String.self, at: 0) {
            entity = concrete
        }
        var violation = ConstraintViolation(entity: entity, table: table, rowID: rowID, constraint: constraint, underlying: error)
        violation.rowIDs = rowIDs
        if error.sqlState == .notNullViolation { violation.column = column }
        return violation
    }

    func entityName(ofTable table: String) -> String {
        switch destination.table(named: table)?.origin {
        case let .entity(root)?: return root
        case let .joinTable(entity, relationship)?: return "\(entity).\(relationship)"
        case nil: return table
        }
    }
}

/// Migrated data breaks a constraint of the destination model.
public struct ConstraintViolation: Error, Sendable, CustomStringConvertible {
    public let entity: String
    public let table: String
    /// A row that breaks the constraint, when one could be found.
    public let rowID: Int64?
    public let constraint: String
    /// The server's error (SQLSTATE class 23).
    public let underlying: PQError
    /// Of a NOT NULL violation (23502, which names no constraint), the column that holds a NULL:
    /// ``constraint`` is then `NOT NULL on` it, and ``table`` its table.
    public var column: String?
    /// The lowest ids of the rows that break a check, up to ``rowsNamed`` (the first is ``rowID``);
    /// for other constraints, ``rowID`` alone.
    public var rowIDs: [Int64] = []

    /// How many rows that break a check are named.
    static let rowsNamed = 5

    public init(entity: String, table: String, rowID: Int64?, constraint: String, underlying: PQError) {
        self.entity = entity
        self.table = table
        self.rowID = rowID
        self.constraint = constraint
        self.underlying = underlying
    }

    /// Of a table keyed otherwise than by an integer id (``ArchiveRowKey``), the keys (their text)
    /// of the rows named instead of ids (``rowID`` nil).
    public var rowKeys: [String] = []

    public var description: String {
        if !rowKeys.isEmpty {
            let rows = rowKeys.count > 1
                ? " row keys \(rowKeys.joined(separator: ", "))\(rowKeys.count == Self.rowsNamed ? " (and perhaps more)" : "") violate"
                : " row key \(rowKeys[0]) violates"
            return "validation failed: \(entity)\(rows) \(constraint) (table \(table)): "
                + "\(underlying.message) [SQLSTATE \(underlying.sqlState?.rawValue ?? "?")]"
        }
        let rows = rowIDs.count > 1
            ? " row ids \(rowIDs.map(String.init).joined(separator: ", "))\(rowIDs.count == Self.rowsNamed ? " (and perhaps more)" : "") violate"
            : "\(rowID.map { " row id \($0)" } ?? "") violates"
        return "validation failed: \(entity)\(rows) \(constraint) (table \(table)): "
            + "\(underlying.message) [SQLSTATE \(underlying.sqlState?.rawValue ?? "?")]"
    }
}

extension StepProgram.Statement {
    /// Whether it adds a check or unique constraint, which existing rows may break.
    var addsRowConstraint: Bool {
        switch operation {
        case .addCheck, .addUnique: true
        default: false
        }
    }
}
