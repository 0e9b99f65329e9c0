import EntityModel
import Foundation
import LibPQ
import TypedSQL

/// Buffers a policy's destination rows for one table and one set of columns, and sends them with
/// COPY in batches:
/// - inserts: `COPY table (id, [entity,] columns…)`;
/// - updates: COPY into a temporary table, applied to the table by `UPDATE … FROM` (see
///   ``flush(apply:)``);
/// - links: `COPY join_table (first, second)` for a many-to-many or one-directional to-many.
///
/// Values are kept as they were given (one flat array, row after row) and encoded straight into
/// the COPY buffer: no per-row strings or dictionaries. A writer knows its table and connection,
/// and nothing of the session that owns it: when ``append(id:_:)`` says the buffer is full, the
/// owner flushes.
final class DestinationWriter {
    enum Kind: CustomStringConvertible {
        case insert, update, link
        var description: String {
            switch self {
            case .insert: return "insert"
            case .update: return "update"
            case .link: return "link"
            }
        }
    }

    /// Where a writer sends its rows: the tenant's transaction and schema, and how many rows it
    /// buffers before the owner flushes.
    struct Destination {
        let connection: Connection
        let schema: String
        let batchSize: Int
    }

    let kind: Kind
    /// The entity (inserts, updates) or `Entity.relationship` (links).
    let entity: String
    /// Value keys (attribute or to-one relationship names), sorted. Empty for links.
    let keys: [String]
    private let destination: Destination
    /// The table written (unqualified): the entity's, or the join table.
    let table: String
    /// The columns COPY fills, in order.
    private let copyColumns: [String]
    /// Types of the value columns, for the temporary table of updates.
    private let valueTypes: [SQLType]
    /// The SQL type of each of ``copyColumns``.
    private let columnTypes: [String]
    private let discriminator: String?
    /// Buffered values, row-major: `fieldsPerRow` per row.
    private var fields: [(any PQEncodable)?] = []
    private let fieldsPerRow: Int
    private var bufferedRows = 0
    /// The smallest and largest id of the buffered rows.
    private var lowestID = Int64.max, highestID = Int64.min
    /// Whether each buffered row's id is larger than the one before (rows streamed in id order,
    /// each updated once): then no id is there twice, and an update needs no de-duplication.
    private var idsIncrease = true
    /// Updates: the temporary table, and the rows sent to it but not yet applied.
    private var updates: PendingUpdates?

    private init(kind: Kind, entity: String, keys: [String], table: String, copyColumns: [String], valueTypes: [SQLType],
                 discriminator: String?, destination: Destination) {
        self.kind = kind
        self.entity = entity
        self.keys = keys
        self.table = table
        self.copyColumns = copyColumns
        self.valueTypes = valueTypes
        columnTypes = kind == .link ? ["bigint", "bigint"] : ["bigint"] + (discriminator != nil ? ["text"] : []) + valueTypes.map(\.rawValue)
        self.discriminator = discriminator
        self.destination = destination
        fieldsPerRow = copyColumns.count
        fields.reserveCapacity(fieldsPerRow * destination.batchSize)
    }

    /// A writer of inserts or updates of `entity` rows that set exactly `keys` (attribute or
    /// key-holding to-one names of the destination version).
    convenience init(_ kind: Kind, entity: String, keys: [String], version: ModelVersion, schema: RelationalSchema,
                     destination: Destination) throws {
        precondition(kind != .link, "use init(linking:…)")
        guard version.entity(named: entity) != nil, let table = schema.table(forEntity: version.rootEntity(of: entity)) else {
            throw PolicyUsageError("version \(version.name) has no entity \(entity)")
        }
        if kind == .insert, version.entity(named: entity)?.isAbstract == true {
            throw PolicyUsageError("\(entity) is abstract in \(version.name); insert a concrete entity")
        }
        let attributes = version.allAttributes(of: entity)
        let relationships = version.allRelationships(of: entity)
        let columns: [Column] = try keys.map { key in
            let origin: Column.Origin?
            if let attribute = attributes.first(where: { $0.attribute.name == key }) {
                origin = .attribute(entity: attribute.declaredBy, attribute: key)
            } else if let relationship = relationships.first(where: { $0.relationship.name == key }) {
                origin = .relationship(entity: relationship.declaredBy, relationship: key)
            } else {
                origin = nil
            }
            guard let origin, let column = table.column(withOrigin: origin) else {
                throw PolicyUsageError("\(entity) in \(version.name) has no attribute or key-holding to-one relationship \"\(key)\""
                    + (relationships.contains { $0.relationship.name == key } ? "; set links with context.link(…)" : ""))
            }
            return column
        }
        let discriminator = kind == .insert && table.column(withOrigin: .discriminator) != nil ? entity : nil
        self.init(kind: kind, entity: entity, keys: keys, table: table.name,
                  copyColumns: ["id"] + (discriminator != nil ? ["entity"] : []) + columns.map(\.name),
                  valueTypes: columns.map(\.type), discriminator: discriminator, destination: destination)
    }

    /// A writer of links into the join table `table` (`first` and `second` column).
    convenience init(linking relationship: String, table: String, first: String, second: String, destination: Destination) {
        self.init(kind: .link, entity: relationship, keys: [], table: table, copyColumns: [first, second], valueTypes: [],
                  discriminator: nil, destination: destination)
    }

    /// Whether this writer serves `kind` rows of `entity` with exactly the keys of `values`.
    @inline(__always)
    func serves(_ kind: Kind, _ entity: String, _ values: [String: (any PQEncodable)?]) -> Bool {
        guard self.kind == kind, values.count == keys.count, self.entity == entity else { return false }
        for key in keys where values.index(forKey: key) == nil { return false }
        return true
    }

    /// Buffers one row; true when the buffer is full and the owner should flush.
    func append(id: Int64, _ values: [String: (any PQEncodable)?]) -> Bool {
        fields.append(id)
        idsIncrease = idsIncrease && id > highestID
        lowestID = min(lowestID, id)
        highestID = max(highestID, id)
        if let discriminator { fields.append(discriminator) }
        for key in keys { fields.append(values[key] ?? nil) }
        return rowAppended()
    }

    /// Buffers one link; true when the buffer is full and the owner should flush.
    func appendLink(_ first: Int64, _ second: Int64) -> Bool {
        fields.append(first)
        fields.append(second)
        return rowAppended()
    }

    @inline(__always)
    private func rowAppended() -> Bool {
        bufferedRows += 1
        return bufferedRows >= destination.batchSize
    }

    /// Sends the buffered rows. Updates go through the temporary table: a batch whose ids lie
    /// close together (the usual case: the mapping's own rows, streamed in id order) is applied
    /// at once, to the ids in its range only, so applying every batch costs about one pass over
    /// the table however many rows it has; a batch spread over the table waits there and is
    /// applied with everything after it when `apply` is true (at the end of each stage, or
    /// before the policy runs SQL).
    ///
    /// The rows of a stage's last flush, when no earlier batch of this writer waits in a temporary
    /// table, need neither COPY nor a temporary table: they go as one statement whose values are
    /// arrays (``sendAsArrays()``), queued to go out with the next round trip.
    ///
    /// - Returns: whether a statement was queued on the connection (see ``Connection/sendWithNextRoundTrip(_:)``).
    @discardableResult
    func flush(apply: Bool) throws -> Bool {
        defer { hasQueued = false }
        if apply, bufferedRows > 0, updates == nil {
            try sendAsArrays()
            return true
        }
        if bufferedRows > 0 {
            switch kind {
            case .insert, .link:
                try copy(into: "\(target) (\(columnList))")
            case .update:
                try sendUpdates()
            }
        }
        if apply, kind == .update, var pending = updates, pending.unappliedRows > 0 {
            try applyUpdates(&pending, range: nil)
            updates = pending
        }
        return hasQueued
    }

    /// Whether this flush queued a statement (an update applied from the temporary table).
    private var hasQueued = false

    /// Queues the buffered rows as one statement with a `text` parameter per column: an array
    /// literal (``ArrayLiteral``), read with the column's type, `unnest`ed into rows. An update
    /// applies the last value sent for each id (joined as they are when no id came twice).
    private func sendAsArrays() throws {
        let connection = destination.connection
        var literals = [ArrayLiteral](repeating: ArrayLiteral(), count: fieldsPerRow)
        for (index, field) in fields.enumerated() { literals[index % fieldsPerRow].append(field) }
        let rows = ArrayLiteral.rows(types: columnTypes, firstParameter: 1)
        let sql: SQL
        switch kind {
        case .insert, .link:
            // The rows come with the ids the policy drew, which a key GENERATED ALWAYS refuses
            // without the clause (COPY writes them as they are).
            sql = "INSERT INTO \(target) (\(columnList)) OVERRIDING SYSTEM VALUE SELECT * FROM \(rows)"
        case .update:
            sql = idsIncrease
                ? "UPDATE \(target) AS t SET \(assignments) FROM \(rows) AS u(\(columnList)) WHERE t.id = u.id"
                : """
                UPDATE \(target) AS t SET \(assignments) FROM (SELECT DISTINCT ON (v.id) v.* FROM \(rows) WITH ORDINALITY \
                AS v(\(columnList), tm_n) ORDER BY v.id, v.tm_n DESC) AS u WHERE t.id = u.id
                """
        }
        try connection.sendWithNextRoundTrip(Statement(sql, binds: literals.map(\.bind)))
        fields.removeAll(keepingCapacity: true)
        bufferedRows = 0
        lowestID = .max
        highestID = .min
        idsIncrease = true
    }

    /// The table, qualified, its name as the caller's naming spells it (``TableNaming/rendering(_:in:_:)``).
    private var target: SQL { ("\(table: table)" as SQL).naming(schema: destination.schema) }
    private var columnList: SQL { "\(ids: copyColumns)" }
    /// `"a" = u."a"` for every column but the id.
    private var assignments: SQL { copyColumns.dropFirst().map { "\(id: $0) = u.\(id: $0)" as SQL }.joined(separator: ", ") }

    private func sendUpdates() throws {
        var pending = try updates ?? PendingUpdates(creatingFor: table, columns: Array(zip(copyColumns.dropFirst(), valueTypes)),
                                                    on: destination.connection)
        let range = lowestID...highestID
        let rows = bufferedRows
        try copy(into: "\(pending.table) (\(columnList))")
        pending.unappliedRows += rows
        // Close together: the range holds at most a few times as many rows as the batch.
        let span = range.upperBound.subtractingReportingOverflow(range.lowerBound)
        if pending.unappliedRows == rows, !span.overflow, span.partialValue < Int64(rows) * 16 {
            try applyUpdates(&pending, range: range)
        }
        updates = pending
    }

    /// `UPDATE … FROM` the temporary table (limited to the ids in `range`), then empties it.
    private func applyUpdates(_ pending: inout PendingUpdates, range: ClosedRange<Int64>?) throws {
        let connection = destination.connection
        var statement: SQL = "UPDATE \(target) AS t SET \(assignments) FROM \(pending.table) AS u WHERE t.id = u.id"
        if let range {
            statement.append(" AND t.id BETWEEN \(int: range.lowerBound) AND \(int: range.upperBound)")
        } else {
            // Everything waiting, at once: with statistics, so the join is planned for its size.
            try connection.sendWithNextRoundTrip(Statement("ANALYZE \(pending.table)"))
        }
        // Nothing waits for their results: they go out with the next round trip (the next COPY's, at the latest).
        try connection.sendWithNextRoundTrip(Statement(statement))
        try connection.sendWithNextRoundTrip(Statement("TRUNCATE \(pending.table)"))
        hasQueued = true
        pending.unappliedRows = 0
    }

    private func copy(into target: SQL) throws {
        let rows = bufferedRows
        let perRow = fieldsPerRow
        _ = try fields.withUnsafeBufferPointer { buffer in
            try destination.connection.copyIn("COPY \(target) FROM STDIN") { writer in
                var index = 0
                for _ in 0..<rows {
                    for _ in 0..<perRow {
                        Self.append(buffer[index], to: &writer)
                        index += 1
                    }
                    try writer.endRow()
                }
            }
        }
        fields.removeAll(keepingCapacity: true)
        bufferedRows = 0
        lowestID = .max
        highestID = .min
        idsIncrease = true
    }

    /// Encodes one value; the common types without going through `PQBind`.
    @inline(__always)
    private static func append(_ value: (any PQEncodable)?, to writer: inout CopyInWriter) {
        switch value {
        case nil: writer.append(nil as Int64?)
        case let number as Int64: writer.append(number)
        case let text as String: writer.append(text)
        case let number as Int: writer.append(number)
        case let number as Int32: writer.append(number)
        case let number as Int16: writer.append(number)
        case let uuid as UUID: writer.append(uuid)
        case let other?: writer.append(other)
        }
    }
}

/// An update writer's temporary table (id and the updated columns), created on its first batch,
/// emptied each time it is applied, dropped at commit; and how many rows wait in it.
private struct PendingUpdates {
    /// In `pg_temp`.
    let table: SQL
    var unappliedRows = 0

    init(creatingFor table: String, columns: [(name: String, type: SQLType)], on connection: Connection) throws {
        // Unique per writer: two mapped steps of one transaction each have their own.
        let name: SQL = "\(id: "_tm_update_\(table.prefix(30))_\(String(UInt64.random(in: .min ... .max), radix: 16))")"
        let definitions: [SQL] = ["id bigint"] + columns.map { "\(id: $0.name) \(type: $0.type)" }
        try connection.sendWithNextRoundTrip(Statement("CREATE TEMPORARY TABLE \(name) (\(definitions, joinedBy: ", ")) ON COMMIT DROP"))
        self.table = "pg_temp.\(name)"
    }
}

/// A policy asked for something its destination model does not have.
struct PolicyUsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
