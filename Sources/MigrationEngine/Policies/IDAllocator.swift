import LibPQ

/// Hands out ids for the rows a policy inserts, from each table's identity sequence, in blocks:
/// one round trip per block, not per row. Blocks double from 64 up to the writers' batch size, so
/// a tenant that needs a few ids does not pay for thousands of them.
///
/// A block is a `nextval` per id, which stays right while other sessions take ids of the same
/// sequence. The sequence of a table the step itself creates (``ownTables``) is seen by nobody
/// else until the step commits: its block is one `nextval` and one `setval` past the block.
struct IDAllocator {
    private let schema: String
    private let largestBlock: Int
    /// Tables created by the step, in a transaction that holds them alone.
    private let ownTables: Set<String>
    /// The unused part of each table's current block.
    private var blocks: [String: (next: Int64, end: Int64)] = [:]
    /// The size of each table's last block.
    private var blockSizes: [String: Int] = [:]

    init(schema: String, largestBlock: Int, ownTables: Set<String> = []) {
        self.schema = schema
        self.largestBlock = max(largestBlock, 100)
        self.ownTables = ownTables
    }

    /// The next id of `table`.
    mutating func next(for table: String, on connection: Connection) throws -> Int64 {
        if let block = blocks[table], block.next < block.end {
            blocks[table] = (block.next + 1, block.end)
            return block.next
        }
        let count = Int64(min(largestBlock, (blockSizes[table] ?? 32) * 2))
        blockSizes[table] = Int(count)
        let sequence = connection.quoteLiteral(connection.qualified(schema, table))
        if ownTables.contains(table) {
            let last = try connection.execute(
                "SELECT pg_catalog.setval(s.id, pg_catalog.nextval(s.id) + $1 - 1) "
                    + "FROM (SELECT pg_catalog.pg_get_serial_sequence(\(sequence), 'id')::regclass AS id) AS s", [count]
            ).first?.decode(Int64.self, at: 0) ?? 0
            blocks[table] = (last - count + 2, last + 1)
            return last - count + 1
        }
        let ids = try connection.execute(
            "SELECT pg_catalog.nextval(pg_catalog.pg_get_serial_sequence(\(sequence), 'id')::regclass) FROM pg_catalog.generate_series(1, $1)", [count]
        ).map { try $0.decode(Int64.self, at: 0) }
        // Sequences hand out increasing values; one block is contiguous unless another session raced us.
        guard let first = ids.first, ids.last == first + count - 1 else {
            blocks[table] = nil
            return ids.first ?? 0
        }
        blocks[table] = (first + 1, first + count)
        return first
    }
}
