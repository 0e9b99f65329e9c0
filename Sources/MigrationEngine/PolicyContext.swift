import EntityModel
import Foundation
import LibPQ
import Logging

/// What a ``MigrationPolicy`` works with: the tenant's transaction, writers that buffer
/// destination rows and send them with COPY, lookup tables for de-duplication (the migration
/// manager's `userInfo` pattern), and the associations between source and destination rows.
///
/// One context serves every mapping of a step, so a later mapping can find the rows an earlier
/// one created. It is not thread-safe and never leaves the migration's thread.
public final class PolicyContext {
    /// The mapping being run.
    public internal(set) var mapping: EntityMapping
    /// The tenant's schema.
    public let schema: String
    /// The tenant's migration transaction: run any SQL here.
    public let connection: Connection
    public let logger: Logger
    let source: ModelVersion
    let destination: ModelVersion
    let destinationSchema: RelationalSchema

    private var writers: [String: DestinationWriter] = [:]
    private var idBlocks: [String: (next: Int64, end: Int64)] = [:]
    private var lookups: [String: [String: Int64]] = [:]
    var associations: [String: AssociationTable] = [:]
    /// Offsets of declarative mappings' destination ids (destination id = source id + offset).
    var declarativeOffsets: [String: Int64] = [:]
    /// Rows written, for statistics.
    var rowsWritten = 0
    /// How many rows a writer buffers before sending them.
    let batchSize: Int

    init(mapping: EntityMapping, schema: String, connection: Connection, source: ModelVersion, destination: ModelVersion,
         logger: Logger, batchSize: Int = 10_000) {
        self.mapping = mapping
        self.schema = schema
        self.connection = connection
        self.source = source
        self.destination = destination
        self.destinationSchema = destination.relationalSchema()
        self.logger = logger
        self.batchSize = batchSize
    }

    /// `"schema"."table"` of a destination entity, for hand-written SQL.
    public func qualifiedTable(of entity: String) -> String {
        connection.quoteIdentifier(schema) + "." + connection.quoteIdentifier(tableName(of: entity))
    }

    func tableName(of entity: String) -> String {
        destinationSchema.table(forEntity: destination.rootEntity(of: entity))?.name ?? entity.snakeCased
    }

    // MARK: Writing destination rows

    /// Inserts a destination object of `entity` and returns its id. `values` are keyed by attribute
    /// name, or by to-one relationship name with the destination row's id. The row is buffered and
    /// sent with COPY in batches; its id is allocated from the table's identity sequence at once.
    @discardableResult
    public func insert(_ entity: String, _ values: [String: (any PostgresEncodable)?]) throws -> Int64 {
        let id = try allocateID(for: entity)
        try writer(for: entity, values.keys, kind: .insert).append(id: id, values)
        rowsWritten += 1
        return id
    }

    /// Sets attributes or to-one relationships of an existing destination row. Buffered, then
    /// applied as one set-based UPDATE per batch.
    public func update(_ entity: String, id: Int64, _ values: [String: (any PostgresEncodable)?]) throws {
        try writer(for: entity, values.keys, kind: .update).append(id: id, values)
        rowsWritten += 1
    }

    /// Sends every buffered row. Stages end with a flush; call it before reading your own writes with SQL.
    public func flush() throws {
        for writer in writers.values.sorted(by: { $0.order < $1.order }) { try writer.flush() }
    }

    private func writer(for entity: String, _ keys: Dictionary<String, (any PostgresEncodable)?>.Keys, kind: DestinationWriter.Kind) throws -> DestinationWriter {
        let sortedKeys = keys.sorted()
        let key = "\(kind)|\(entity)|\(sortedKeys.joined(separator: ","))"
        if let existing = writers[key] { return existing }
        let writer = try DestinationWriter(kind: kind, entity: entity, keys: sortedKeys, context: self, order: writers.count)
        writers[key] = writer
        return writer
    }

    private func allocateID(for entity: String) throws -> Int64 {
        let table = tableName(of: entity)
        if let block = idBlocks[table], block.next < block.end {
            idBlocks[table] = (block.next + 1, block.end)
            return block.next
        }
        let count = Int64(max(batchSize, 100))
        let sequence = connection.quoteLiteral(connection.quoteIdentifier(schema) + "." + connection.quoteIdentifier(table))
        let ids = try connection.execute(
            "SELECT nextval(pg_get_serial_sequence(\(sequence), 'id')) FROM generate_series(1, $1)", [count]
        ).map { try $0.decode(Int64.self, at: 0) }
        // Sequences hand out increasing values; one block is contiguous unless another session raced us.
        guard let first = ids.first, ids.last == first + count - 1 else {
            idBlocks[table] = nil
            return ids.first ?? 0
        }
        idBlocks[table] = (first + 1, first + count)
        return first
    }

    // MARK: Lookups (the migration manager's userInfo)

    /// The id remembered under `key` in lookup table `name`.
    public func lookup(_ name: String, _ key: String) -> Int64? { lookups[name]?[key] }

    /// Remembers `id` under `key` in lookup table `name`.
    public func remember(_ name: String, _ key: String, id: Int64) { lookups[name, default: [:]][key] = id }

    /// The id under `key` in lookup table `name`, created with `create` (and remembered) the first time.
    public func lookupOrCreate(_ name: String, _ key: String, create: () throws -> Int64) rethrows -> Int64 {
        if let id = lookups[name]?[key] { return id }
        let id = try create()
        lookups[name, default: [:]][key] = id
        return id
    }

    // MARK: Associations

    /// Records that the current mapping made `destination` from the source row `source`.
    public func associate(source: Int64, destination: Int64) {
        associations[mapping.name, default: AssociationTable()].append(source: source, destination: destination)
    }

    /// The destination rows that mapping `name` made from source row `source`
    /// (`destinationInstancesForEntityMappingNamed:sourceInstances:`).
    public func destinations(of source: Int64, mapping name: String) -> [Int64] {
        if let offset = declarativeOffsets[name] { return [source + offset] }
        return associations[name]?.destinations(of: source) ?? []
    }

    /// Runs SQL in the migration's transaction (after flushing buffered writes).
    @discardableResult
    public func execute(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) throws -> QueryResult {
        try flush()
        return try connection.execute(sql, parameters)
    }
}

/// Source → destination id pairs of one mapping, kept compact: two arrays, sorted on first lookup.
struct AssociationTable {
    private var sources: [Int64] = []
    private var targets: [Int64] = []
    private var isSorted = true

    mutating func append(source: Int64, destination: Int64) {
        if let last = sources.last, source < last { isSorted = false }
        sources.append(source)
        targets.append(destination)
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
