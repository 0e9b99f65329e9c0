import EntityModel
import LibPQ
import PostgresTestSupport
import TypedSQL

/// What a tenant's app does between two migration calls: random inserts (NULLs included), updates
/// (of the attributes a mapped way back reads too), deletes and relinks (a to-one moved to another
/// row, or cleared), as plain SQL in the tenant's schema, run as `role` (a role that owns nothing:
/// the app's). It works on the plain entities of an ``AppChangeOracle`` (their upper tables).
/// Values are those any version of the family can hold (integers that fit a `smallint`, floats a
/// `real`), so a narrowing way down takes them.
struct AppWorkload {
    var random: SeededGenerator
    var inserts = 0, updates = 0, deletes = 0, relinks = 0, nulls = 0
    /// Of the deletes, rows deleted first because they named the deleted row by a required to-one.
    var dependentDeletes = 0
    /// Statements PostgreSQL refused (a constraint): rolled back, counted, not a failure.
    var refused = 0
    /// Of the updates and relinks, those made to what a way back derives through a link from
    /// another row (``AppChangeOracle/Derivation/throughLink(link:table:column:)``).
    var otherRowUpdates = 0
    /// `distinct:` keys renamed below (every row of a value, or one of several sharing it), and
    /// deleted rows whose key a new row took (``renameKey(_:oracle:role:schema:on:)``).
    var keyRenames = 0, keyReuses = 0

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    static let values: [String: [String]] = [
        "text": ["app", "Ünï 3", " spaced ", "", "q'uote\\n"],
        "smallint": ["-7", "12", "300", "0"], "integer": ["-7", "12", "300", "0"], "bigint": ["-7", "12", "300", "0"],
        "numeric": ["3.140", "-0.5", "12345678901234567890.25"],
        "double precision": ["0.25", "-0", "1024.5", "-3.75"], "real": ["0.25", "-0", "1024.5", "-3.75"],
        "boolean": ["true", "false"],
        "timestamptz": ["2025-03-04 05:06:07.123+00", "1999-12-31 23:59:59+05"],
        "uuid": ["00000000-0000-0000-0000-0000000000aa", "123e4567-e89b-12d3-a456-426614174001"],
        "bytea": ["\\x00ff10", "\\x"],
        "jsonb": ["{\"app\": 1, \"n\": [1, 2]}", "null", "\"s\""],
    ]

    private mutating func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[Int.random(in: 0..<items.count, using: &random)] }

    /// A value for `column`: NULL now and then where it may be.
    private mutating func value(for column: Column) -> SQL {
        if column.isNullable && Int.random(in: 0..<5, using: &random) == 0 {
            nulls += 1
            return "NULL"
        }
        return "\(literal: pick(Self.values[column.type.rawValue] ?? ["0"])!)"
    }

    /// Makes `operations` changes to `oracle`'s upper tables in `schema` as `role`. A row that
    /// rows of the lower version name by a required to-one (`dependents`,
    /// ``AppChangeOracle/dependents(in:on:)``) is deleted after them, as an app deletes what
    /// cannot live without it first.
    /// - Parameter keys: `distinct:` keys of a later pair (``AppChangeOracle/extractedKeys``, lower
    ///   names) that the app renames here, below the pair, now and then.
    mutating func run(_ operations: Int, on oracle: AppChangeOracle, schema: String, role: String, undeletable: [String: Set<Int64>],
                      dependents: AppChangeOracle.Dependents = [:], keys: [AppChangeOracle.ExtractedKey] = [], on connection: Connection) throws {
        let tables = oracle.tables.map(\.upper.name)
        for table in oracle.upLeftTables.map(\.name) {
            try connection.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON \(table: table) TO \(id: role)", schema: schema)
        }
        try connection.execute("GRANT USAGE ON SCHEMA \(SQL.schema) TO \(id: role)", schema: schema)
        for _ in 0..<operations {
            if let key = pick(keys), Int.random(in: 0..<2, using: &random) == 0 {
                try renameKey(key, oracle: oracle, role: role, schema: schema, on: connection)
                continue
            }
            guard let pair = pick(oracle.tables) else { return }
            let table = pair.upper
            let ids = try connection.execute("SELECT id FROM \(table: table.name) ORDER BY id", schema: schema).map { try $0.decode(Int64.self, at: 0) }
            // Links the app may set: to rows of the plain entities (which exist at both versions).
            let links = table.columns.filter { column in
                if case .relationship = column.origin { return table.foreignKeys.contains { $0.columns == [column.name] && tables.contains($0.referencedTable) } }
                return false
            }
            let frozen = Set(pair.derivations.values.compactMap(\.frozen))
            let attributes = table.columns.filter { if case .attribute = $0.origin { !frozen.contains($0.name) } else { false } }
            let wayBackSources = Set(pair.derivations.values.compactMap { if case let .wayBack(column, _) = $0 { column } else { nil } })
            var statement: SQL
            var first: [SQL] = []
            // What a way back derives from another row: the app renames that row, or relinks.
            // (Drawn only where there is one: other families' changes stay as they were.)
            let throughLinks = pair.derivations.values.compactMap { derivation -> (link: String, table: String, column: String)? in
                if case let .throughLink(link, table, column) = derivation { return (link, table, column) }
                return nil
            }
            if let through = pick(throughLinks), Bool.random(using: &random) {
                let targets = try connection.execute("SELECT id FROM \(table: through.table) ORDER BY id", schema: schema).map { try $0.decode(Int64.self, at: 0) }
                if Bool.random(using: &random), let target = pick(targets) {
                    let value = pick(["app", "Ünï 3", " spaced ", "q'uote"])!
                    statement = "UPDATE \(table: through.table) SET \(id: through.column) = \(literal: value) WHERE id = \(bind: .integer(target))"
                    updates += 1
                    otherRowUpdates += 1
                } else if let row = pick(ids) {
                    let target = Int.random(in: 0..<4, using: &random) == 0 ? nil : pick(targets)
                    statement = "UPDATE \(table: table.name) SET \(id: through.link) = \(bind: target.map { .integer($0) } ?? .null) WHERE id = \(bind: .integer(row))"
                    relinks += 1
                    otherRowUpdates += 1
                } else {
                    continue
                }
                try execute(statement, first: first, role: role, schema: schema, on: connection)
                continue
            }
            switch Int.random(in: 0..<10, using: &random) {
            case 0...3:
                // Half of them to what the way down derives something from otherwise than by carrying it.
                let derivedFrom = Set(pair.derivations.values.compactMap { derivation -> String? in
                    if case .carried(_, nil) = derivation { return nil }
                    return derivation.source
                })
                let favoured = attributes.filter { derivedFrom.contains($0.name) }
                guard let row = pick(ids), let column = pick(favoured.isEmpty || Bool.random(using: &random) ? attributes : favoured) else { continue }
                // A way back's source changes so that what it derives changes too.
                let value: SQL = wayBackSources.contains(column.name) && Int.random(in: 0..<4, using: &random) > 0
                    ? "CASE WHEN coalesce(\(id: column.name), -1) = 5 THEN 6 ELSE 5 END" : self.value(for: column)
                statement = "UPDATE \(table: table.name) SET \(id: column.name) = \(value) WHERE id = \(bind: .integer(row))"
                updates += 1
            case 4...5:
                guard let insert = try insertion(into: pair, attributes: attributes, links: links, schema: schema, on: connection) else { continue }
                statement = insert
                inserts += 1
            case 6:
                guard let row = pick(ids.filter { !(undeletable[table.name]?.contains($0) ?? false) }) else { continue }
                // Its dependents first, theirs before them (required to-ones make no cycle).
                let chain = Self.dependents(of: (table.name, row), in: dependents)
                guard !chain.contains(where: { undeletable[$0.table]?.contains($0.id) ?? false }) else { continue }
                first = chain.map { "DELETE FROM \(table: $0.table) WHERE id = \(bind: .integer($0.id))" }
                statement = "DELETE FROM \(table: table.name) WHERE id = \(bind: .integer(row))"
                deletes += 1 + chain.count
                dependentDeletes += chain.count
            default:
                guard let row = pick(ids), let column = pick(links) else { continue }
                let target = column.isNullable && Int.random(in: 0..<4, using: &random) == 0 ? nil : pick(try targets(of: column, in: table, schema: schema, on: connection))
                statement = "UPDATE \(table: table.name) SET \(id: column.name) = \(bind: target.map { .integer($0) } ?? .null) WHERE id = \(bind: .integer(row))"
                relinks += 1
            }
            try execute(statement, first: first, role: role, schema: schema, on: connection)
        }
    }

    /// A row for `pair`'s upper table: random values (`given` where named), links to random rows;
    /// nil where the table takes no inserts.
    private mutating func insertion(into pair: AppChangeOracle.TablePair, attributes: [Column], links: [Column], given: [String: SQL] = [:],
                                    schema: String, on connection: Connection) throws -> SQL? {
        let table = pair.upper
        guard pair.acceptsInserts, !table.columns.contains(where: { column in
            if case .relationship = column.origin { return !column.isNullable && !links.contains(column) } else { return false }
        }) else { return nil }
        var names: [String] = [], values: [SQL] = []
        for column in attributes {
            names.append(column.name)
            values.append(given[column.name] ?? value(for: column))
        }
        for column in links {
            let targets = try targets(of: column, in: table, schema: schema, on: connection)
            names.append(column.name)
            values.append(column.isNullable && Int.random(in: 0..<3, using: &random) == 0 ? "NULL" : pick(targets).map { "\(bind: .integer($0))" } ?? "NULL")
        }
        return names.isEmpty ? "INSERT INTO \(table: table.name) DEFAULT VALUES" : "INSERT INTO \(table: table.name) (\(ids: names)) VALUES (\(values, joinedBy: ", "))"
    }

    /// Renames a `distinct:` key below its pair: every row holding a value (to a new value, or to
    /// another row's, merging them), or one of the rows sharing one; or deletes a row and gives
    /// its key to a new row.
    private mutating func renameKey(_ key: AppChangeOracle.ExtractedKey, oracle: AppChangeOracle, role: String, schema: String,
                                    on connection: Connection) throws {
        guard let pair = oracle.tables.first(where: { $0.upper.name == key.lower }) else { return }
        let rows = try connection.execute("SELECT id, \(id: key.key) FROM \(table: key.lower) WHERE \(id: key.key) IS NOT NULL ORDER BY id", schema: schema)
            .map { (try $0.decode(Int64.self, at: 0), try $0.decode(String.self, at: 1)) }
        guard let (row, old) = pick(rows) else { return }
        let fresh = "renamed \(keyRenames + keyReuses) " + pick(["Ünï", "q'uote", " spaced "])!
        switch Int.random(in: 0..<4, using: &random) {
        case 0, 1:
            let other = pick(rows.map(\.1).filter { $0 != old })
            let value = Int.random(in: 0..<3, using: &random) == 0 ? other ?? fresh : fresh
            try execute("UPDATE \(table: key.lower) SET \(id: key.key) = \(literal: value) WHERE \(id: key.key) = \(literal: old)", first: [], role: role, schema: schema, on: connection)
            keyRenames += 1
        case 2:
            guard let shared = pick(rows.filter { row in rows.filter { $0.1 == row.1 }.count > 1 }) else { return }
            try execute("UPDATE \(table: key.lower) SET \(id: key.key) = \(literal: fresh) WHERE id = \(bind: .integer(shared.0))", first: [], role: role, schema: schema, on: connection)
            keyRenames += 1
        default:
            let frozen = Set(pair.derivations.values.compactMap(\.frozen))
            let attributes = pair.upper.columns.filter { if case .attribute = $0.origin { !frozen.contains($0.name) } else { false } }
            let tables = oracle.tables.map(\.upper.name)
            let links = pair.upper.columns.filter { column in
                if case .relationship = column.origin { return pair.upper.foreignKeys.contains { $0.columns == [column.name] && tables.contains($0.referencedTable) } }
                return false
            }
            guard attributes.contains(where: { $0.name == key.key }),
                  let insert = try insertion(into: pair, attributes: attributes, links: links, given: [key.key: "\(literal: old)"], schema: schema, on: connection)
            else { return }
            try execute(insert, first: ["DELETE FROM \(table: key.lower) WHERE id = \(bind: .integer(row))"], role: role, schema: schema, on: connection)
            keyReuses += 1
        }
    }

    /// Runs `first`, then `statement`, as `role` in a subtransaction; a refusal is counted.
    private mutating func execute(_ statement: SQL, first: [SQL], role: String, schema: String, on connection: Connection) throws {
        do {
            try connection.transaction { connection in
                try connection.execute("SET ROLE \(id: role)", schema: schema)
                for dependent in first { try connection.execute(dependent, schema: schema) }
                try connection.execute(statement, schema: schema)
                try connection.execute("RESET ROLE", schema: schema)
            }
        } catch {
            refused += 1
        }
    }

    /// The rows that must go before `row` (upper table names), deepest first.
    static func dependents(of row: (table: String, id: Int64), in dependents: AppChangeOracle.Dependents) -> [(table: String, id: Int64)] {
        var ordered: [(table: String, id: Int64)] = []
        var seen: Set<String> = ["\(row.table) \(row.id)"]
        func visit(_ row: (table: String, id: Int64)) {
            for dependent in dependents[row.table]?[row.id] ?? [] where seen.insert("\(dependent.table) \(dependent.id)").inserted {
                visit(dependent)
                ordered.append(dependent)
            }
        }
        visit(row)
        return ordered
    }

    private func targets(of column: Column, in table: Table, schema: String, on connection: Connection) throws -> [Int64] {
        let key = table.foreignKeys.first { $0.columns == [column.name] }!
        return try connection.execute("SELECT id FROM \(table: key.referencedTable) ORDER BY id", schema: schema).map { try $0.decode(Int64.self, at: 0) }
    }
}
