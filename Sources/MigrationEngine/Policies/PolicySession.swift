import EntityModel
import LibPQ
import Logging

/// The policy runtime of one mapped step in one tenant: the state every mapping's policy shares
/// (destination writers, id blocks, lookup tables, associations, warnings, the archive) and the
/// only owner of the writers. The step makes one session, and the ``PolicyExecutor`` makes a
/// ``PolicyContext`` per mapping that refers to it, so a later mapping finds the rows and
/// associations an earlier one made.
///
/// Memory stays flat in the number of rows: writers hold one batch, associations spill to a
/// temporary table (``AssociationStore``), and only lookup tables grow, with the distinct keys a
/// policy remembers. Not thread-safe; it never leaves the migration's thread.
final class PolicySession {
    /// The tenant's schema.
    let schema: String
    /// The tenant's migration transaction.
    let connection: Connection
    let logger: Logger
    /// The compiled step: versions, source table names while the mappings run.
    let compiler: MappingCompiler
    /// The tenant's archive for this step (nil with `--no-archive`).
    let archive: StepArchive?
    /// How many rows a writer buffers before the session sends every writer's rows.
    let batchSize: Int
    /// Offsets of declarative mappings' destination ids (destination id = source id + offset),
    /// set by the step as it runs them.
    var declarativeOffsets: [String: Int64] = [:]
    /// Rows written, for statistics.
    private(set) var rowsWritten = 0
    /// The table whose every row the policy being run reads (its mapping has no filter), while it
    /// reads them: its updates may set its indexes aside (``IndexesSetAside``).
    var readingEveryRowOf: String?
    /// Indexes dropped while a policy rewrites their large table (nil: never, as online).
    let indexesSetAside: IndexesSetAside?
    /// What the policies' own statements resolve to, judged once per statement text.
    let statementTrust: PolicyStatementTrust

    /// Writers in creation order (a handful per step: found by a linear scan, without building keys).
    private var writers: [DestinationWriter] = []
    private var linkTargets: [String: LinkTarget] = [:]
    private var ids: IDAllocator
    private var lookups: [String: [String: Int64]] = [:]
    private let associations: AssociationStore
    private var warnings = WarningTally()
    private var deferredError: (any Error)?

    /// - Parameter exclusive: whether the step's transaction holds its tables alone (not on Citus;
    ///   online too: the steps run on the shadow or a round's delta, which the app cannot use): a
    ///   policy that rewrites every row of a large table may then drop its plain secondary indexes
    ///   meanwhile (``IndexesSetAside``), and ids of tables the step creates are taken a block at
    ///   a time (``IDAllocator``).
    /// - Parameter createdTables: the tables the step creates (``StepProgram/createdTables``).
    /// - Parameter ownTablesTaken: which of them earlier tenants' policies took ids from (``IDAllocator``).
    init(schema: String, connection: Connection, compiler: MappingCompiler, archive: StepArchive?, logger: Logger? = nil,
         batchSize: Int = 10_000, associationsInMemory: Int = 65_536, exclusive: Bool = false, createdTables: Set<String> = [],
         ownTablesTaken: OwnTablesTaken? = nil) {
        self.schema = schema
        self.connection = connection
        self.logger = logger ?? connection.logger
        self.compiler = compiler
        self.archive = archive
        self.batchSize = batchSize
        ids = IDAllocator(schema: schema, largestBlock: batchSize, ownTables: exclusive ? createdTables : [], taken: ownTablesTaken)
        associations = AssociationStore(memoryLimit: associationsInMemory)
        indexesSetAside = exclusive ? IndexesSetAside(schema: schema, connection: connection) : nil
        statementTrust = PolicyStatementTrust(schema: schema)
    }

    /// Runs `body`, the runtime's own work for a policy (its statements typed SQL over the
    /// tenant's tables, judged with the model's expressions), with no judge of the policy's SQL.
    func runtime<T>(_ body: () throws -> T) rethrows -> T {
        try connection.judging(by: nil, body)
    }

    var source: ModelVersion { compiler.source }
    var destination: ModelVersion { compiler.destination }
    /// The destination version's tables.
    var destinationSchema: RelationalSchema { compiler.differ.new }

    func tableName(of entity: String) -> String {
        if let known = tableNames[entity] { return known }
        let name = destinationSchema.table(forEntity: destination.rootEntity(of: entity))?.name ?? entity.snakeCased
        tableNames[entity] = name
        return name
    }

    /// The destination table of each entity a policy wrote, worked out once.
    private var tableNames: [String: String] = [:]

    /// Where a source entity's attribute is archived (``StepArchive/location(of:_:in:schema:)``),
    /// worked out once per attribute rather than once per archived value.
    func archiveLocation(of entity: String, _ attribute: String, in archive: StepArchive) throws -> (table: String, column: String) {
        let key = entity + "." + attribute
        if let known = archiveLocations[key] { return known }
        let location = try StepArchive.location(of: entity, attribute, in: source, schema: archive.sourceSchema)
        archiveLocations[key] = location
        return location
    }

    private var archiveLocations: [String: (table: String, column: String)] = [:]

    // MARK: Writing destination rows

    func insert(_ entity: String, _ values: [String: (any PQEncodable)?]) throws -> Int64 {
        let id = try ids.next(for: tableName(of: entity), on: connection)
        try send(try writer(.insert, entity, values).append(id: id, values))
        rowsWritten += 1
        return id
    }

    func update(_ entity: String, id: Int64, _ values: [String: (any PQEncodable)?]) throws {
        let writer = try writer(.update, entity, values)
        let isFull = writer.append(id: id, values)
        rowsWritten += 1
        if isFull, let indexesSetAside, writer.table == readingEveryRowOf { try indexesSetAside.setAside(writer.table) }
        try send(isFull)
    }

    func link(_ entity: String, _ relationship: String, from: Int64, to: Int64) throws {
        switch try linkTarget(entity, relationship) {
        case let .joinTable(writer, reversed):
            try send(reversed ? writer.appendLink(to, from) : writer.appendLink(from, to))
            rowsWritten += 1
        case let .foreignKey(holder, key, reversed):
            try update(holder, id: reversed ? to : from, [key: reversed ? from : to])
        }
    }

    /// Sends every buffered row and applies buffered updates, so that a failure is reported by the
    /// stage that wrote the rows.
    func flush() throws {
        var queued = false
        for writer in writers { queued = try writer.flush(apply: true) || queued }
        if queued { try connection.sendQueuedStatements() }
    }

    /// A writer's buffer is full: send every writer's rows, in creation order, so rows that refer
    /// to rows of an earlier writer arrive after them.
    private func send(_ bufferIsFull: Bool) throws {
        guard bufferIsFull else { return }
        for writer in writers { try writer.flush(apply: false) }
    }

    private func writer(_ kind: DestinationWriter.Kind, _ entity: String, _ values: [String: (any PQEncodable)?]) throws -> DestinationWriter {
        for writer in writers where writer.serves(kind, entity, values) { return writer }
        let writer = try DestinationWriter(kind, entity: entity, keys: values.keys.sorted(), version: destination, schema: destinationSchema,
                                           destination: writerDestination)
        writers.append(writer)
        return writer
    }

    private var writerDestination: DestinationWriter.Destination {
        DestinationWriter.Destination(connection: connection, schema: schema, batchSize: batchSize)
    }

    /// What stores `entity.relationship` in the destination, worked out once per relationship.
    private func linkTarget(_ entity: String, _ relationship: String) throws -> LinkTarget {
        let key = entity + "." + relationship
        if let known = linkTargets[key] { return known }
        let target: LinkTarget
        switch try DestinationLink(entity, relationship, in: destination, schema: destinationSchema) {
        case let .foreignKey(holder, key, reversed):
            target = .foreignKey(holder: holder, key: key, reversed: reversed)
        case let .joinTable(table, first, second, reversed):
            let writer = DestinationWriter(linking: key, table: table, first: first, second: second, destination: writerDestination)
            writers.append(writer)
            target = .joinTable(writer, reversed: reversed)
        }
        linkTargets[key] = target
        return target
    }

    private enum LinkTarget {
        case joinTable(DestinationWriter, reversed: Bool)
        /// `update(holder, id: from, [key: to])`, or with the ends swapped.
        case foreignKey(holder: String, key: String, reversed: Bool)
    }

    // MARK: Lookups (the migration manager's userInfo)

    func lookup(_ name: String, _ key: String) -> Int64? { lookups[name]?[key] }

    func remember(_ name: String, _ key: String, id: Int64) { lookups[name, default: [:]][key] = id }

    // MARK: Associations

    func associate(mapping: String, source: Int64, destination: Int64) {
        associations.append(mapping: mapping, source: source, destination: destination)
    }

    /// The destinations of `source` in `mapping`. Reading spilled associations can fail; the
    /// policy's API does not throw, so the error is kept and thrown by ``afterPolicyCall()``, and
    /// the tenant's migration fails (and rolls back) as soon as the policy call returns.
    func destinations(of source: Int64, mapping: String) -> [Int64] {
        if let offset = declarativeOffsets[mapping] { return [source + offset] }
        do {
            return try associations.destinations(of: source, mapping: mapping, on: connection)
        } catch {
            deferredError = deferredError ?? error
            return []
        }
    }

    /// After each call into a policy: throws what a non-throwing call of the policy's met, and
    /// sends associations that filled their memory.
    func afterPolicyCall() throws {
        if let error = deferredError {
            deferredError = nil
            throw error
        }
        try associations.spillIfFull(on: connection)
    }

    // MARK: Warnings

    func warn(_ message: String, mapping: String, sourceRow id: Int64) {
        warnings.add(message, mapping: mapping, sourceRow: id)
    }

    /// The step's policies ran: logs each aggregated warning once.
    func finish() {
        for line in warnings.lines { logger.warning("\(line)") }
        warnings = WarningTally()
    }
}
