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

    /// Writers in creation order (a handful per step: found by a linear scan, without building keys).
    private var writers: [DestinationWriter] = []
    private var idBlocks: [String: (next: Int64, end: Int64)] = [:]
    /// The size of the last id block per table: blocks double from 64 up to the batch size, so a
    /// tenant that needs a few ids does not pay for thousands of `nextval` calls.
    private var idBlockSizes: [String: Int] = [:]
    private var lookups: [String: [String: Int64]] = [:]
    var associations: [String: AssociationTable] = [:]
    /// Offsets of declarative mappings' destination ids (destination id = source id + offset).
    var declarativeOffsets: [String: Int64] = [:]
    /// Set by the default `createRelationships`: the policy has no relationship pass, so the
    /// runner need not stream the source rows a second time.
    var relationshipPassIsDefault = false
    /// Rows written, for statistics.
    var rowsWritten = 0
    /// Warnings about source rows, aggregated by mapping and message (see ``warn(_:sourceRow:)``).
    var aggregatedWarnings: [AggregatedWarning] = []
    /// The compiled step, for source table names (set by the step before the mappings run).
    var compiler: MappingCompiler?
    /// The tenant's archive for this step (nil with `--no-archive`), for ``archive(entity:id:attribute:value:)``.
    var archive: StepArchive?
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
    public func insert(_ entity: String, _ values: [String: (any PQEncodable)?]) throws -> Int64 {
        let id = try allocateID(for: entity)
        try writer(.insert, entity, values).append(id: id, values)
        rowsWritten += 1
        return id
    }

    /// Sets attributes or key-holding to-one relationships of an existing destination row.
    /// Buffered and applied as one set-based `UPDATE … FROM` when the context flushes (at the end
    /// of each stage, or before ``execute(_:_:)``). If one row is updated twice with the same keys
    /// before a flush, which value wins is unspecified.
    public func update(_ entity: String, id: Int64, _ values: [String: (any PQEncodable)?]) throws {
        try writer(.update, entity, values).append(id: id, values)
        rowsWritten += 1
    }

    /// Links the destination row `from` of `entity` to the row `to` through `relationship`
    /// (Core Data's `mutableSetValueForKey(…).add`), whatever stores it:
    /// - a many-to-many or one-directional to-many: a row of its join table, sent with COPY;
    /// - a to-one that holds the foreign key: `update(entity, id: from, [relationship: to])`;
    /// - a to-many whose inverse to-one holds the key: an update of the `to` row's inverse.
    ///
    /// Linking the same pair twice through a join table violates its primary key (the migration
    /// fails): de-duplicate in the policy.
    public func link(_ entity: String, _ relationship: String, from: Int64, to: Int64) throws {
        let target = try linkTarget(entity, relationship)
        switch target {
        case let .joinTable(writer, reversed):
            if reversed { try writer.appendLink(to, from) } else { try writer.appendLink(from, to) }
            rowsWritten += 1
        case let .foreignKey(holder, key, reversed):
            try update(holder, id: reversed ? to : from, [key: reversed ? from : to])
        }
    }

    private enum LinkTarget {
        case joinTable(DestinationWriter, reversed: Bool)
        /// `update(holder, id: from, [key: to])`, or with the ends swapped.
        case foreignKey(holder: String, key: String, reversed: Bool)
    }

    private var linkTargets: [String: LinkTarget] = [:]

    private func linkTarget(_ entity: String, _ relationship: String) throws -> LinkTarget {
        let cacheKey = entity + "." + relationship
        if let known = linkTargets[cacheKey] { return known }
        guard let (declaredBy, declared) = destination.allRelationships(of: entity).first(where: { $0.relationship.name == relationship }) else {
            throw PolicyUsageError("\(entity) in \(destination.name) has no relationship \"\(relationship)\"")
        }
        let target: LinkTarget
        let inverse = declared.inverse.flatMap { name in
            destination.allRelationships(of: declared.destination).first { $0.relationship.name == name }
        }
        if !declared.isToMany {
            let holdsKey = destinationSchema.table(forEntity: destination.rootEntity(of: declaredBy))?
                .column(withOrigin: .relationship(entity: declaredBy, relationship: relationship)) != nil
            if holdsKey {
                target = .foreignKey(holder: entity, key: relationship, reversed: false)
            } else if let inverse, !inverse.relationship.isToMany {
                // A one-to-one whose key is on the other side.
                target = .foreignKey(holder: declared.destination, key: inverse.relationship.name, reversed: true)
            } else {
                throw PolicyUsageError("\(entity).\(relationship) holds no foreign key in \(destination.name)")
            }
        } else if let inverse, !inverse.relationship.isToMany {
            target = .foreignKey(holder: declared.destination, key: inverse.relationship.name, reversed: true)
        } else {
            // A join table, owned by this side or by the inverse.
            var found: (Table, reversed: Bool)?
            for table in destinationSchema.tables {
                guard case let .joinTable(owner, ownerRelationship) = table.origin else { continue }
                if owner == declaredBy, ownerRelationship == relationship { found = (table, false); break }
                if let inverse, owner == inverse.declaredBy, ownerRelationship == inverse.relationship.name { found = (table, true); break }
            }
            guard let (table, reversed) = found,
                  let first = table.columns.first(where: { if case .joinSource = $0.origin { return true } else { return false } }),
                  let second = table.columns.first(where: { if case .joinDestination = $0.origin { return true } else { return false } }) else {
                throw PolicyUsageError("\(entity).\(relationship) has no join table in \(destination.name)")
            }
            let writer = DestinationWriter(linking: cacheKey, table: table.name, first: first.name, second: second.name,
                                           context: self, order: writers.count)
            writers.append(writer)
            target = .joinTable(writer, reversed: reversed)
        }
        linkTargets[cacheKey] = target
        return target
    }

    /// Sends every buffered row and applies buffered updates. Stages end with a flush; call it
    /// before reading your own writes with SQL.
    public func flush() throws {
        for writer in writers { try writer.flush(apply: true) }
    }

    /// One writer's buffer is full: send every writer's rows, in creation order, so rows that
    /// refer to rows of an earlier writer arrive after them.
    func writerIsFull() throws {
        for writer in writers { try writer.flush(apply: false) }
    }

    private func writer(_ kind: DestinationWriter.Kind, _ entity: String, _ values: [String: (any PQEncodable)?]) throws -> DestinationWriter {
        for writer in writers where writer.serves(kind, entity, values) { return writer }
        let writer = try DestinationWriter(kind: kind, entity: entity, keys: values.keys.sorted(), context: self, order: writers.count)
        writers.append(writer)
        return writer
    }

    private func allocateID(for entity: String) throws -> Int64 {
        let table = tableName(of: entity)
        if let block = idBlocks[table], block.next < block.end {
            idBlocks[table] = (block.next + 1, block.end)
            return block.next
        }
        let count = Int64(min(max(batchSize, 100), (idBlockSizes[table] ?? 32) * 2))
        idBlockSizes[table] = Int(count)
        let sequence = connection.quoteLiteral(connection.quoteIdentifier(schema) + "." + connection.quoteIdentifier(table))
        let ids = try connection.execute(
            "SELECT pg_catalog.nextval(pg_catalog.pg_get_serial_sequence(\(sequence), 'id')::regclass) FROM pg_catalog.generate_series(1, $1)", [count]
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
    public func execute(_ sql: String, _ parameters: [(any PQEncodable)?] = []) throws -> QueryResult {
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
