import LibPQ
import TypedSQL

/// Hands out ids for the rows a policy inserts, from each table's identity sequence, in blocks:
/// one round trip per block, not per row. Blocks double from 64 up to the writers' batch size, so
/// a tenant that needs a few ids does not pay for thousands of them.
///
/// A block is a `nextval` per id, which stays right while other sessions take ids of the same
/// sequence. The sequence of a table the step itself creates (``ownTables``) is seen by nobody
/// else until the step commits: its block is one `nextval` and one `setval` past the block. The
/// step's other new tables that earlier tenants' policies took ids from (``OwnTablesTaken``) get
/// their first block in the same statement, so a policy that fills two new tables costs one round
/// trip, not two (a table this tenant's policies then leave empty only has a gap in its sequence).
struct IDAllocator {
    private let schema: String
    private let largestBlock: Int
    /// Tables created by the step, in a transaction that holds them alone.
    private let ownTables: Set<String>
    /// The step's new tables that policies took ids from, as the fleet run learned them.
    private let taken: OwnTablesTaken?
    /// The unused part of each table's current block.
    private var blocks: [String: (next: Int64, end: Int64)] = [:]
    /// The size of each table's last block.
    private var blockSizes: [String: Int] = [:]

    init(schema: String, largestBlock: Int, ownTables: Set<String> = [], taken: OwnTablesTaken? = nil) {
        self.schema = schema
        self.largestBlock = max(largestBlock, 100)
        self.ownTables = ownTables
        self.taken = taken
    }

    /// The next id of `table`.
    mutating func next(for table: String, on connection: Connection) throws -> Int64 {
        if let block = blocks[table], block.next < block.end {
            blocks[table] = (block.next + 1, block.end)
            return block.next
        }
        if ownTables.contains(table) {
            // With it, the first block of each new table earlier tenants' policies took ids from.
            let companions = (taken?.tables ?? []).filter { $0 != table && ownTables.contains($0) && blockSizes[$0] == nil }
            taken?.note(table)
            try reserveBlocks(of: [table] + companions, on: connection)
            return try next(for: table, on: connection)
        }
        let count = Int64(min(largestBlock, (blockSizes[table] ?? 32) * 2))
        blockSizes[table] = Int(count)
        let ids = try connection.execute(
            "SELECT pg_catalog.nextval(pg_catalog.pg_get_serial_sequence(\(qualifiedNameLiteral: table), 'id')::regclass) FROM pg_catalog.generate_series(1, $1)",
            schema: schema, [count]
        ).map { try $0.decode(Int64.self, at: 0) }
        // Sequences hand out increasing values; one block is contiguous unless another session raced us.
        guard let first = ids.first, ids.last == first + count - 1 else {
            blocks[table] = nil
            return ids.first ?? 0
        }
        blocks[table] = (first + 1, first + count)
        return first
    }

    /// Takes the next block of each of `tables` (new tables of the step), in one statement.
    private mutating func reserveBlocks(of tables: [String], on connection: Connection) throws {
        let counts = tables.map { Int64(min(largestBlock, (blockSizes[$0] ?? 32) * 2)) }
        let selects = tables.indices.map { index -> SQL in
            """
            SELECT \(int: index), pg_catalog.setval(s.id, pg_catalog.nextval(s.id) + $\(int: index + 1) - 1) FROM (SELECT pg_catalog.pg_get_serial_sequence(\
            \(qualifiedNameLiteral: tables[index]), 'id')::regclass AS id) AS s
            """
        }
        let sql: SQL = selects.count == 1 ? selects[0] : "\(selects, joinedBy: " UNION ALL ") ORDER BY 1"
        let lasts = try connection.execute(sql, schema: schema, counts).map { try $0.decode(Int64.self, at: 1) }
        for (index, table) in tables.enumerated() {
            let count = counts[index], last = index < lasts.count ? lasts[index] : 0
            blockSizes[table] = Int(count)
            blocks[table] = (last - count + 1, last + 1)
        }
    }
}

/// The new tables of one compiled step that its policies took ids from, in the order a tenant
/// first did, shared by the tenants of a fleet run (see ``IDAllocator``).
final class OwnTablesTaken: Sendable {
    private let taken = Locked<[String]>([])

    init() {}

    var tables: [String] { taken.withLock { $0 } }

    func note(_ table: String) {
        taken.withLock { if !$0.contains(table) { $0.append(table) } }
    }
}
