import EntityModel
import Foundation
import LibPQ
import PostgresTestSupport
import TypedSQL

/// An app at work on one tenant: seeded random inserts, updates and deletes on every table of a
/// model version, NULLs included, made from the model (any family). Each statement that succeeds
/// is kept, in order, so that the same changes can be made to a twin tenant later
/// (``replay(inSchema:on:)``).
///
/// Rows are inserted with explicit ids from a range of their own, so the twin gets the same ids
/// whatever identity values the first tenant used.
public struct TenantWorkload {
    public let version: ModelVersion
    public let schema: String
    private var generator: SeededGenerator
    private var nextID: Int64
    /// The statements that succeeded, with `\u{1}` where the schema goes.
    public private(set) var applied: [String] = []
    /// Statements tried, and refused by the server (a constraint, a narrowing): not kept.
    public private(set) var refused = 0

    public init(version: ModelVersion, schema: String, seed: UInt64, firstID: Int64 = 1_000_000) {
        self.version = version
        self.schema = schema
        generator = SeededGenerator(seed: seed)
        nextID = firstID
    }

    private var tables: [Table] { version.relationalSchema().tables.sorted { $0.name < $1.name } }

    /// Makes `count` random changes, each in its own transaction.
    public mutating func run(_ count: Int, on connection: Connection) throws {
        for _ in 0..<count { try step(on: connection) }
    }

    /// One random change to one random table: an insert (half the time), an update or a delete.
    public mutating func step(on connection: Connection) throws {
        let table = tables[Int.random(in: 0..<tables.count, using: &generator)]
        let roll = Int.random(in: 0..<10, using: &generator)
        let statement: String?
        switch roll {
        case 0..<5: statement = try insert(into: table, on: connection)
        case 5..<8: statement = try update(table, on: connection)
        default: statement = try delete(from: table, on: connection)
        }
        guard let statement else { return }
        do {
            try connection.execute(unsafeSQL: statement.replacingOccurrences(of: "\u{1}", with: connection.quoteIdentifier(schema)))
            applied.append(statement)
        } catch is PQError {
            refused += 1
        }
    }

    /// Makes the kept changes again, in order, in `schema`.
    public func replay(inSchema schema: String, on connection: Connection) throws {
        for statement in applied {
            try connection.execute(unsafeSQL: statement.replacingOccurrences(of: "\u{1}", with: connection.quoteIdentifier(schema)))
        }
    }

    private func qualified(_ table: String) -> String { "\u{1}." + PostgreSQLQuoting().quoteIdentifier(table) }

    private mutating func insert(into table: Table, on connection: Connection) throws -> String? {
        var columns: [String] = []
        var values: [String] = []
        for column in table.columns {
            guard let value = try value(for: column, of: table, on: connection) else { return nil }
            columns.append(PostgreSQLQuoting().quoteIdentifier(column.name))
            values.append(value)
        }
        return "INSERT INTO \(qualified(table.name)) (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
    }

    private mutating func update(_ table: Table, on connection: Connection) throws -> String? {
        let key = table.primaryKey.columns
        let candidates = table.columns.filter { !key.contains($0.name) && $0.origin != .discriminator }
        guard !candidates.isEmpty, let row = try someRow(of: table, on: connection) else { return nil }
        var assignments: [String] = []
        for column in candidates.shuffled(using: &generator).prefix(Int.random(in: 1...2, using: &generator)) {
            guard let value = try value(for: column, of: table, on: connection) else { return nil }
            assignments.append("\(PostgreSQLQuoting().quoteIdentifier(column.name)) = \(value)")
        }
        return "UPDATE \(qualified(table.name)) SET \(assignments.joined(separator: ", ")) WHERE \(row)"
    }

    private mutating func delete(from table: Table, on connection: Connection) throws -> String? {
        guard let row = try someRow(of: table, on: connection) else { return nil }
        return "DELETE FROM \(qualified(table.name)) WHERE \(row)"
    }

    /// `a = 1 AND b = 2` for a random existing row of `table`, nil when it is empty.
    private mutating func someRow(of table: Table, on connection: Connection) throws -> String? {
        let key = table.primaryKey.columns
        let quoted = key.map { PostgreSQLQuoting().quoteIdentifier($0) }
        let name = connection.qualified(schema, table.name)
        let count = try connection.scalar("SELECT count(*)::int8 FROM \(name)", as: Int64.self)
        guard count > 0 else { return nil }
        let offset = Int64.random(in: 0..<count, using: &generator)
        guard let row = try connection.execute(unsafeSQL: "SELECT \(quoted.map { "\($0)::int8" }.joined(separator: ", ")) FROM \(name) ORDER BY \(quoted.joined(separator: ", ")) OFFSET \(offset) LIMIT 1").first else { return nil }
        return try zip(quoted, key.indices).map { "\($0) = \(try row.decode(Int64.self, at: $1))" }.joined(separator: " AND ")
    }

    /// A literal for `column`: NULL now and then where allowed, an existing row's id for a key.
    private mutating func value(for column: Column, of table: Table, on connection: Connection) throws -> String? {
        switch column.origin {
        case .primaryKey:
            nextID += 1
            return String(nextID)
        case .discriminator:
            guard case let .entity(root) = table.origin else { return nil }
            let concrete = version.hierarchy(of: root).filter { version.entity(named: $0)?.isAbstract == false }
            guard let entity = concrete.randomElement(using: &generator) else { return nil }
            return PostgreSQLQuoting().quoteLiteral(entity)
        default:
            break
        }
        if column.isNullable, Int.random(in: 0..<5, using: &generator) == 0 { return "NULL" }
        if let key = table.foreignKeys.first(where: { $0.columns == [column.name] }) {
            guard let referenced = version.relationalSchema().table(named: key.referencedTable), let row = try someRow(of: referenced, on: connection) else { return column.isNullable ? "NULL" : nil }
            return String(row.split(separator: "=").last!.trimmingCharacters(in: .whitespaces))
        }
        return literal(of: column.type)
    }

    private mutating func literal(of type: SQLType) -> String {
        let pick = Int.random(in: 0..<1000, using: &generator)
        switch type {
        case .text:
            let words = ["Meat", "Fish", "Vegetarian", "Dessert", "Other", "Entrée", " spaced ", "it's", "", "g", "ml", "Salt", "salt"]
            let word = words[pick % words.count]
            return PostgreSQLQuoting().quoteLiteral(pick % 3 == 0 ? word : "\(word) \(pick)")
        case .smallint: return String(pick % 300 - 50)
        case .integer: return String(pick - 100)
        case .bigint: return String(Int64(pick) * 1_000_003)
        case .numeric: return "\(pick / 10).\(pick % 10)"
        case .doublePrecision, .real: return "\(Double(pick) / 8)"
        case .boolean: return pick % 2 == 0 ? "true" : "false"
        case .timestamptz: return "'2024-0\(1 + pick % 9)-1\(pick % 10) 12:34:56+00'"
        case .uuid: return PostgreSQLQuoting().quoteLiteral(UUID(uuidString: String(format: "00000000-0000-4000-8000-%012x", pick))!.uuidString.lowercased())
        case .bytea: return "'\\x\(String(format: "%04x", pick))'::bytea"
        case .jsonb: return PostgreSQLQuoting().quoteLiteral("{\"n\": \(pick)}")
        default: return "NULL"
        }
    }
}

/// Every row of a tenant's tables, by table, each row as JSON text ordered by key (column order
/// does not matter), and its archive entries without their timestamps: what two tenants must
/// share to hold the same data.
///
/// `naturalKeys` names tables whose ids are allocated rather than carried (the rows a distinct
/// mapping makes per key: `["ingredient": "name"]`): their rows are compared by that column, and
/// every foreign key to them holds the referenced row's value of it instead of its id.
public func tenantContents(schema: String, version: ModelVersion, naturalKeys: [String: String] = [:], on connection: Connection) throws -> [String: [String]] {
    var contents: [String: [String]] = [:]
    for table in version.relationalSchema().tables {
        var key = table.primaryKey.columns.map { "t." + connection.quoteIdentifier($0) }.joined(separator: ", ")
        var row = "pg_catalog.to_jsonb(t)"
        var joins = ""
        if let natural = naturalKeys[table.name] {
            row += " - 'id'"
            key = "t." + connection.quoteIdentifier(natural)
        }
        for (index, foreignKey) in table.foreignKeys.enumerated() {
            guard foreignKey.columns.count == 1, let natural = naturalKeys[foreignKey.referencedTable] else { continue }
            let column = foreignKey.columns[0]
            row += " - \(connection.quoteLiteral(column)) || pg_catalog.jsonb_build_object(\(connection.quoteLiteral(column)), n\(index).\(connection.quoteIdentifier(natural)))"
            joins += " LEFT JOIN \(connection.qualified(schema, foreignKey.referencedTable)) AS n\(index) ON n\(index).id = t.\(connection.quoteIdentifier(column))"
        }
        contents[table.name] = try connection.column(
            "SELECT (\(row))::text FROM \(connection.qualified(schema, table.name)) AS t\(joins) ORDER BY \(key)", as: String.self
        )
    }
    if try connection.scalar("SELECT to_regclass($1) IS NOT NULL", [connection.qualified(schema, "_tm_archive")], as: Bool.self) {
        // An entry's left_value may name the row's links as they were (`{"status_id": "6"}`): a
        // link to a naturally keyed table holds the referenced row's natural key instead of its id.
        var leftValue = "a.left_value"
        for table in version.relationalSchema().tables {
            for foreignKey in table.foreignKeys where foreignKey.columns.count == 1 {
                guard let natural = naturalKeys[foreignKey.referencedTable] else { continue }
                let column = connection.quoteLiteral(foreignKey.columns[0])
                let json = "(\(leftValue))::jsonb"
                let referenced = "(SELECT pg_catalog.to_jsonb(n.\(connection.quoteIdentifier(natural))) FROM \(connection.qualified(schema, foreignKey.referencedTable)) AS n "
                    + "WHERE n.id::text = \(json) ->> \(column))"
                // Nested CASEs: only a left_value of this table that is a JSON object is parsed.
                leftValue = "CASE WHEN a.table_name = \(connection.quoteLiteral(table.name)) AND a.left_value LIKE '{%' THEN CASE WHEN \(json) ? \(column) "
                    + "THEN pg_catalog.jsonb_set(\(json), ARRAY[\(column)], COALESCE(\(referenced), 'null'))::text ELSE \(leftValue) END ELSE \(leftValue) END"
            }
        }
        // (An online run archives links without their target, which catch-up could not keep current;
        // a dropped table's identity mark, `#identity`, counts the ids the run drew, and catch-up
        // draws more.)
        contents["_tm_archive"] = try connection.column(
            "SELECT (pg_catalog.to_jsonb(a) - 'archived_at' - 'target' || pg_catalog.jsonb_build_object('left_value', \(leftValue)))::text AS entry "
                + "FROM \(connection.qualified(schema, "_tm_archive")) AS a WHERE a.column_name <> '#identity' ORDER BY 1", as: String.self
        )
    }
    return contents
}

/// A ``TenantWorkload`` running on a thread of its own (not the cooperative pool, which the
/// migration's awaits need), one change every few milliseconds, until ``stop()``; between
/// ``stop()`` and ``resume()`` others may drive the same workload (``drive(_:)``).
public final class BackgroundWorkload: @unchecked Sendable {
    private let lock = NSCondition()
    private var workload: TenantWorkload
    private let conninfo: String
    private var running = false
    private var threadDone = true
    private var failure: (any Error)?

    public init(_ workload: TenantWorkload, conninfo: String) {
        self.workload = workload
        self.conninfo = conninfo
    }

    /// Starts (or starts again) making changes in the background.
    public func resume() {
        lock.lock()
        running = true
        threadDone = false
        lock.unlock()
        let thread = Thread { [self] in
            do {
                let connection = try Connection(conninfo)
                while true {
                    lock.lock()
                    let go = running
                    if go { do { try workload.step(on: connection) } catch { failure = error; running = false } }
                    lock.unlock()
                    if !go { break }
                    Thread.sleep(forTimeInterval: 0.005)
                }
            } catch {
                lock.lock(); failure = error; lock.unlock()
            }
            lock.lock(); threadDone = true; lock.broadcast(); lock.unlock()
        }
        thread.start()
    }

    /// Stops the background changes and waits until the last one is done.
    public func stop() {
        lock.lock()
        running = false
        while !threadDone { lock.wait() }
        lock.unlock()
    }

    private var foreground: Connection?

    /// Makes `count` changes now, on a connection of the caller's (the background must be stopped).
    public func drive(_ count: Int) throws {
        lock.lock(); defer { lock.unlock() }
        if foreground == nil { foreground = try Connection(conninfo) }
        try workload.run(count, on: foreground!)
    }

    /// The workload so far; throws what the background thread failed with.
    public func result() throws -> TenantWorkload {
        lock.lock(); defer { lock.unlock() }
        if let failure { throw failure }
        return workload
    }
}
