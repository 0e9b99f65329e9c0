import EntityModel
import Foundation
import LibPQ
import Logging
import TypedSQL

/// What a ``MigrationPolicy`` works with while it migrates one entity mapping: the tenant's
/// transaction, writers that buffer destination rows and send them with COPY, lookup tables for
/// de-duplication (the migration manager's `userInfo` pattern), and the associations between
/// source and destination rows.
///
/// Each mapping gets its own context; all contexts of a step share one session (its writers,
/// lookups and associations), so a later mapping can find the rows an earlier one created. It is
/// not thread-safe and never leaves the migration's thread.
public final class PolicyContext {
    /// The mapping being run.
    public let mapping: EntityMapping
    let session: PolicySession
    /// Set by the default `createRelationships`: the policy has no relationship pass, so the
    /// runner need not stream the source rows a second time.
    var relationshipPassIsDefault = false
    /// The check of a row-local policy run online (nil offline, or for a policy that declares it
    /// reads other rows).
    let locality: RowLocalityCheck?

    init(mapping: EntityMapping, session: PolicySession, locality: RowLocalityCheck? = nil) {
        self.mapping = mapping
        self.session = session
        self.locality = locality
    }

    /// The tenant's schema.
    public var schema: String { session.schema }
    /// The tenant's migration transaction: run any SQL here. Each distinct statement is judged
    /// before it first runs (``PolicyStatementTrust``).
    public var connection: Connection {
        locality?.sql("the migration's connection")
        return session.connection
    }
    public var logger: Logger { session.logger }

    /// `"schema"."table"` of a destination entity, for hand-written SQL.
    public func qualifiedTable(of entity: String) -> String {
        locality?.sql("the name of table \(entity)")
        return ("\(table: session.tableName(of: entity))" as SQL).text(schema: schema)
    }

    // MARK: Writing destination rows

    /// Inserts a destination object of `entity` and returns its id. `values` are keyed by attribute
    /// name, or by to-one relationship name with the destination row's id. The row is buffered and
    /// sent with COPY in batches; its id is allocated from the table's identity sequence at once.
    @discardableResult
    public func insert(_ entity: String, _ values: [String: (any PQEncodable)?]) throws -> Int64 {
        locality?.willInsert(entity)
        let id = try session.runtime { try session.insert(entity, values) }
        locality?.didInsert(entity, id: id)
        return id
    }

    /// Sets attributes or key-holding to-one relationships of an existing destination row.
    /// Buffered, sent with COPY and applied set-based (`UPDATE … FROM`) by batch, and at the latest
    /// when the context flushes (at the end of each stage, or before ``execute(_:_:)``). If one row
    /// is updated twice with the same keys before a flush, which value wins is unspecified.
    public func update(_ entity: String, id: Int64, _ values: [String: (any PQEncodable)?]) throws {
        locality?.writes(id, "updates \(entity)")
        try session.runtime { try session.update(entity, id: id, values) }
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
        locality?.writes(from, "links \(entity).\(relationship)")
        try session.runtime { try session.link(entity, relationship, from: from, to: to) }
    }

    /// Sends every buffered row and applies buffered updates. Stages end with a flush; call it
    /// before reading your own writes with SQL.
    public func flush() throws {
        try session.runtime { try session.flush() }
    }

    /// Runs SQL in the migration's transaction (after flushing buffered writes): the policy's own
    /// text, sent as written. What its names resolve to is judged before it first runs, as
    /// everything the policy sends on ``connection`` is: a function, operator, type or view an
    /// untrusted role controls is refused (``PolicyStatementTrust``, docs/Security.md).
    @discardableResult
    public func execute(_ sql: String, _ parameters: [(any PQEncodable)?] = []) throws -> QueryResult {
        locality?.sql("SQL (execute)")
        try flush()
        return try session.connection.execute(unsafeSQL: sql, parameters)
    }

    // MARK: Lookups (the migration manager's userInfo)

    /// The id remembered under `key` in lookup table `name`.
    public func lookup(_ name: String, _ key: String) -> Int64? {
        locality?.lookup(name, key, writing: false, known: false)
        return session.lookup(name, key)
    }

    /// Remembers `id` under `key` in lookup table `name`.
    public func remember(_ name: String, _ key: String, id: Int64) {
        locality?.lookup(name, key, writing: true, known: session.lookup(name, key) != nil)
        session.remember(name, key, id: id)
    }

    /// The id under `key` in lookup table `name`, created with `create` (and remembered) the first time.
    public func lookupOrCreate(_ name: String, _ key: String, create: () throws -> Int64) rethrows -> Int64 {
        if let id = lookup(name, key) { return id }
        let id = try create()
        remember(name, key, id: id)
        return id
    }

    // MARK: Associations

    /// Records that this context's mapping made `destination` from the source row `source`.
    /// Associations are kept in memory up to a limit, and beyond it in a temporary table.
    public func associate(source: Int64, destination: Int64) {
        locality?.writes(source, "records an association")
        session.associate(mapping: mapping.name, source: source, destination: destination)
    }

    /// The destination rows that mapping `name` made from source row `source`
    /// (`destinationInstancesForEntityMappingNamed:sourceInstances:`). Asking in ascending source
    /// order, as the rows stream, is cheapest; where a mapping's associations were spilled to a
    /// temporary table, a source far from the last one asked costs a query.
    public func destinations(of source: Int64, mapping name: String) -> [Int64] {
        locality?.readsDestinations(of: source)
        return session.runtime { session.destinations(of: source, mapping: name) }
    }

    // MARK: Warnings

    /// Warns about a source row. Warnings with the same message in one mapping are logged as one
    /// line at the end of the step, with the number of rows and the first few ids, so a warning
    /// that applies to 3,000 rows is one line, not 3,000. Keep `message` free of row values.
    public func warn(_ message: String, sourceRow id: Int64) {
        session.warn(message, mapping: mapping.name, sourceRow: id)
    }

    // MARK: Source tables

    /// `"schema"."table"` of a **source** entity as named while the mappings run: renamed
    /// already, not yet dropped (a table the step drops can still be read).
    public func sourceTable(of entity: String) throws -> String {
        guard session.source.entity(named: entity) != nil, let table = session.compiler.sourceTable(of: entity) else {
            throw PolicyUsageError("version \(session.source.name) has no entity \(entity)")
        }
        locality?.sql("the name of source table \(entity)")
        return ("\(table: table)" as SQL).text(schema: schema)
    }

    /// The join table of a source many-to-many (or one-directional to-many) relationship, while
    /// the mappings run: its qualified name, the column of `entity`'s side and the other side's.
    public func sourceJoinTable(of entity: String, _ relationship: String) throws -> (table: String, thisSide: String, otherSide: String) {
        guard let join = session.compiler.sourceJoinTable(of: entity, relationship) else {
            throw PolicyUsageError("\(entity).\(relationship) has no join table in \(session.source.name)")
        }
        locality?.sql("the name of a source join table")
        let names: [SQL] = ["\(table: join.name)", "\(id: join.this)", "\(id: join.other)"]
        let text = names.map { $0.text(schema: schema) }
        return (text[0], text[1], text[2])
    }
}
