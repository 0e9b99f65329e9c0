import EntityModel
import Foundation
import LibPQ

/// Buffers a policy's destination rows for one table and one set of columns, and sends them with
/// COPY in batches:
/// - inserts: `COPY table (id, [entity,] columns…)`;
/// - updates: COPY into a temporary table, applied by one `UPDATE … FROM` when the context flushes
///   (at the end of every stage, and before ``PolicyContext/execute(_:_:)``), so a million updates
///   cost one set-based statement rather than one per batch;
/// - links: `COPY join_table (first, second)` for a many-to-many or one-directional to-many.
///
/// Values are kept as they were given (one flat array, row after row) and encoded straight into
/// the COPY buffer: no per-row strings or dictionaries.
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

    let kind: Kind
    /// The entity (inserts, updates) or `Entity.relationship` (links).
    let entity: String
    /// Value keys (attribute or to-one relationship names), sorted. Empty for links.
    let keys: [String]
    let order: Int
    private let table: String
    /// The columns COPY fills, in order.
    private let copyColumns: [String]
    /// Types of the value columns, for the temporary table of updates.
    private let valueTypes: [SQLType]
    private let discriminator: String?
    private unowned let context: PolicyContext
    /// Buffered values, row-major: `fieldsPerRow` per row.
    private var fields: [(any PQEncodable)?] = []
    private let fieldsPerRow: Int
    private var bufferedRows = 0
    private var temporaryTable: String?
    /// Updates sent to the temporary table but not yet applied.
    private var unappliedUpdates = false

    init(kind: Kind, entity: String, keys: [String], context: PolicyContext, order: Int) throws {
        precondition(kind != .link, "use init(linking:…)")
        self.kind = kind
        self.entity = entity
        self.keys = keys
        self.context = context
        self.order = order
        let version = context.destination
        guard version.entity(named: entity) != nil,
              let table = context.destinationSchema.table(forEntity: version.rootEntity(of: entity)) else {
            throw PolicyUsageError("version \(version.name) has no entity \(entity)")
        }
        if kind == .insert, version.entity(named: entity)?.isAbstract == true {
            throw PolicyUsageError("\(entity) is abstract in \(version.name); insert a concrete entity")
        }
        self.table = table.name
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
        discriminator = kind == .insert && table.column(withOrigin: .discriminator) != nil ? entity : nil
        copyColumns = ["id"] + (discriminator != nil ? ["entity"] : []) + columns.map(\.name)
        valueTypes = columns.map(\.type)
        fieldsPerRow = copyColumns.count
        fields.reserveCapacity(fieldsPerRow * context.batchSize)
    }

    /// A writer of links into the join table `table` (`first` and `second` column).
    init(linking relationship: String, table: String, first: String, second: String, context: PolicyContext, order: Int) {
        kind = .link
        entity = relationship
        keys = []
        self.table = table
        self.context = context
        self.order = order
        copyColumns = [first, second]
        valueTypes = []
        discriminator = nil
        fieldsPerRow = 2
        fields.reserveCapacity(2 * context.batchSize)
    }

    /// Whether this writer serves `kind` rows of `entity` with exactly the keys of `values`.
    @inline(__always)
    func serves(_ kind: Kind, _ entity: String, _ values: [String: (any PQEncodable)?]) -> Bool {
        guard self.kind == kind, values.count == keys.count, self.entity == entity else { return false }
        for key in keys where values.index(forKey: key) == nil { return false }
        return true
    }

    func append(id: Int64, _ values: [String: (any PQEncodable)?]) throws {
        fields.append(id)
        if let discriminator { fields.append(discriminator) }
        for key in keys { fields.append(values[key] ?? nil) }
        try rowAppended()
    }

    func appendLink(_ first: Int64, _ second: Int64) throws {
        fields.append(first)
        fields.append(second)
        try rowAppended()
    }

    @inline(__always)
    private func rowAppended() throws {
        bufferedRows += 1
        if bufferedRows >= context.batchSize { try context.writerIsFull() }
    }

    /// Sends the buffered rows. Updates reach the table only when `apply` is true.
    func flush(apply: Bool) throws {
        let connection = context.connection
        let target = connection.quoteIdentifier(context.schema) + "." + connection.quoteIdentifier(table)
        let columnList = copyColumns.map(connection.quoteIdentifier).joined(separator: ", ")
        if bufferedRows > 0 {
            switch kind {
            case .insert, .link:
                try copy(into: "\(target) (\(columnList))")
            case .update:
                let temporary = try prepareTemporaryTable()
                try copy(into: "pg_temp.\(connection.quoteIdentifier(temporary)) (\(columnList))")
                unappliedUpdates = true
            }
        }
        guard apply, kind == .update, unappliedUpdates, let temporaryTable else { return }
        let temporary = "pg_temp.\(connection.quoteIdentifier(temporaryTable))"
        let assignments = copyColumns.dropFirst()
            .map { "\(connection.quoteIdentifier($0)) = u.\(connection.quoteIdentifier($0))" }.joined(separator: ", ")
        try connection.execute("ANALYZE \(temporary)")
        try connection.execute("UPDATE \(target) AS t SET \(assignments) FROM \(temporary) AS u WHERE t.id = u.id")
        try connection.execute("TRUNCATE \(temporary)")
        unappliedUpdates = false
    }

    private func copy(into target: String) throws {
        let rows = bufferedRows
        let perRow = fieldsPerRow
        _ = try fields.withUnsafeBufferPointer { buffer in
            try context.connection.copyIn("COPY \(target) FROM STDIN") { writer in
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

    /// A temporary table (id + the updated columns), created once per writer and emptied after
    /// each UPDATE; dropped at commit.
    private func prepareTemporaryTable() throws -> String {
        if let temporaryTable { return temporaryTable }
        let connection = context.connection
        // Unique per step: two mapped steps of one transaction each have their own.
        let name = "_tm_update_\(table.prefix(30))_\(order)_\(String(UInt32.random(in: .min ... .max), radix: 16))"
        let definitions = ["id bigint"] + zip(copyColumns.dropFirst(), valueTypes).map { "\(connection.quoteIdentifier($0)) \($1.rawValue)" }
        try connection.execute("CREATE TEMPORARY TABLE \(connection.quoteIdentifier(name)) (\(definitions.joined(separator: ", "))) ON COMMIT DROP")
        temporaryTable = name
        return name
    }
}

/// A policy asked for something its destination model does not have.
struct PolicyUsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
