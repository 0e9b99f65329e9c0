import LibPQ

/// The source → destination id pairs that policies record with
/// ``PolicyContext/associate(source:destination:)``, per mapping, for
/// ``PolicyContext/destinations(of:mapping:)``.
///
/// Memory stays flat in the number of rows: each mapping keeps at most `memoryLimit` pairs in
/// memory; beyond that its pairs go to a temporary table with COPY. Reading spilled pairs loads
/// them in windows of ascending source ids (`memoryLimit` pairs at a time), so a pass over the
/// rows in id order, the usual way, costs one query per window; a lookup far outside the window
/// costs a query of its own.
final class AssociationStore {
    private let memoryLimit: Int
    private var mappings: [String: MappingAssociations] = [:]

    init(memoryLimit: Int = 65_536) {
        self.memoryLimit = max(memoryLimit, 2)
    }

    /// Records a pair in memory; ``spillIfFull(on:)`` sends them on.
    func append(mapping: String, source: Int64, destination: Int64) {
        mappings[mapping, default: MappingAssociations()].recent.append(source: source, destination: destination)
    }

    /// Sends the in-memory pairs of every mapping that has `memoryLimit` of them to its
    /// temporary table.
    func spillIfFull(on connection: Connection) throws {
        for (mapping, associations) in mappings where associations.recent.count >= memoryLimit {
            var spilled = associations
            try spill(&spilled, on: connection)
            mappings[mapping] = spilled
        }
    }

    func destinations(of source: Int64, mapping: String, on connection: Connection) throws -> [Int64] {
        guard var associations = mappings.removeValue(forKey: mapping) else { return [] }
        defer { mappings[mapping] = associations }
        guard associations.table != nil else { return associations.recent.destinations(of: source) }
        if associations.recent.count > 0 { try spill(&associations, on: connection) }
        if associations.window?.covers(source) != true {
            associations.window = try loadWindow(from: source, of: &associations, on: connection)
        }
        if associations.window!.covers(source) { return associations.window!.pairs.destinations(of: source) }
        // More pairs for this one source than a window holds.
        return try connection.execute("SELECT destination FROM \(associations.table!) WHERE source = $1 ORDER BY destination", [source])
            .map { try $0.decode(Int64.self, at: 0) }
    }

    /// Sends the mapping's in-memory pairs to its temporary table (created on the first spill).
    private func spill(_ associations: inout MappingAssociations, on connection: Connection) throws {
        if associations.table == nil {
            let name: SQL = "pg_temp.\(id: "_tm_associations_\(String(UInt32.random(in: .min ... .max), radix: 16))")"
            try connection.execute("CREATE TEMPORARY TABLE \(name) (source bigint NOT NULL, destination bigint NOT NULL) ON COMMIT DROP")
            associations.table = name
        }
        let pairs = associations.recent
        _ = try connection.copyIn("COPY \(associations.table!) (source, destination) FROM STDIN") { writer in
            try pairs.forEach { source, destination in
                writer.append(source)
                writer.append(destination)
                try writer.endRow()
            }
        }
        associations.recent = AssociationTable()
        associations.window = nil
    }

    /// The pairs of the `memoryLimit` smallest sources from `source` on.
    private func loadWindow(from source: Int64, of associations: inout MappingAssociations, on connection: Connection) throws -> AssociationWindow {
        let table = associations.table!
        if !associations.isIndexed {
            try connection.execute("CREATE INDEX ON \(table) (source)")
            try connection.execute("ANALYZE \(table)")
            associations.isIndexed = true
        }
        var pairs = AssociationTable()
        var last = source
        let rows = try connection.execute("SELECT source, destination FROM \(table) WHERE source >= $1 ORDER BY source LIMIT $2", [source, Int64(memoryLimit)])
        for row in rows {
            last = try row.decode(Int64.self, at: 0)
            pairs.append(source: last, destination: try row.decode(Int64.self, at: 1))
        }
        // A full window may hold only some of its last source's pairs: it ends before that source.
        let through = rows.rowCount < memoryLimit ? Int64.max : last - 1
        return AssociationWindow(from: source, through: through, pairs: pairs)
    }
}

/// One mapping's pairs: the latest in memory, the rest in a temporary table.
private struct MappingAssociations {
    var recent = AssociationTable()
    /// The temporary table, qualified and quoted, once pairs were spilled.
    var table: SQL?
    var isIndexed = false
    /// The spilled pairs last read back.
    var window: AssociationWindow?
}

/// Spilled pairs read back: every pair whose source is in `from...through`.
private struct AssociationWindow {
    let from: Int64
    let through: Int64
    var pairs: AssociationTable

    func covers(_ source: Int64) -> Bool { from <= source && source <= through }
}

/// Source → destination id pairs kept compact: two arrays, sorted on first lookup.
struct AssociationTable {
    private var sources: [Int64] = []
    private var targets: [Int64] = []
    private var isSorted = true

    var count: Int { sources.count }

    mutating func append(source: Int64, destination: Int64) {
        if let last = sources.last, source < last { isSorted = false }
        sources.append(source)
        targets.append(destination)
    }

    func forEach(_ body: (Int64, Int64) throws -> Void) rethrows {
        for index in sources.indices { try body(sources[index], targets[index]) }
    }

    mutating func destinations(of source: Int64) -> [Int64] {
        if !isSorted {
            let order = sources.indices.sorted { sources[$0] < sources[$1] }
            sources = order.map { sources[$0] }
            targets = order.map { targets[$0] }
            isSorted = true
        }
        var low = 0, high = sources.count
        while low < high {
            let middle = (low + high) / 2
            if sources[middle] < source { low = middle + 1 } else { high = middle }
        }
        var found: [Int64] = []
        while low < sources.count, sources[low] == source { found.append(targets[low]); low += 1 }
        return found
    }
}
