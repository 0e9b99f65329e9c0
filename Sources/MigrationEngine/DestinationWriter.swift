import EntityModel
import LibPQ

/// Buffers a policy's destination rows for one table and one set of columns, and sends them in
/// batches: inserts with COPY, updates with COPY into a temporary table and one UPDATE … FROM.
final class DestinationWriter {
    enum Kind: CustomStringConvertible {
        case insert, update
        var description: String { self == .insert ? "insert" : "update" }
    }

    let kind: Kind
    let entity: String
    /// Value keys (attribute or relationship names), sorted, and their columns.
    private let keys: [String]
    private let columns: [Column]
    private let table: String
    private let discriminator: String?
    private unowned let context: PolicyContext
    let order: Int
    private var rows: [[String?]] = []
    private var temporaryTable: String?

    init(kind: Kind, entity: String, keys: [String], context: PolicyContext, order: Int) throws {
        self.kind = kind
        self.entity = entity
        self.keys = keys
        self.context = context
        self.order = order
        let version = context.destination
        guard let table = context.destinationSchema.table(forEntity: version.rootEntity(of: entity)) else {
            throw PolicyUsageError("version \(version.name) has no entity \(entity)")
        }
        self.table = table.name
        columns = try keys.map { key in
            let attribute = version.allAttributes(of: entity).first { $0.attribute.name == key }
            let relationship = version.allRelationships(of: entity).first { $0.relationship.name == key }
            let origin: Column.Origin? = attribute.map { .attribute(entity: $0.declaredBy, attribute: key) }
                ?? relationship.map { .relationship(entity: $0.declaredBy, relationship: key) }
            guard let origin, let column = table.column(withOrigin: origin) else {
                throw PolicyUsageError("\(entity) in \(version.name) has no attribute or to-one relationship \"\(key)\"")
            }
            return column
        }
        discriminator = kind == .insert && table.column(withOrigin: .discriminator) != nil ? entity : nil
    }

    func append(id: Int64, _ values: [String: (any PostgresEncodable)?]) throws {
        var row: [String?] = [String(id)]
        if let discriminator { row.append(discriminator) }
        for key in keys {
            let bind = (values[key] ?? nil)?.postgresBind ?? .null
            if bind.format == .binary, let bytes = bind.bytes {
                row.append("\\x" + bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined())
            } else {
                row.append(bind.bytes.map { String(decoding: $0, as: UTF8.self) })
            }
        }
        rows.append(row)
        if rows.count >= context.batchSize { try flush() }
    }

    func flush() throws {
        guard !rows.isEmpty else { return }
        let connection = context.connection
        let target = connection.quoteIdentifier(context.schema) + "." + connection.quoteIdentifier(table)
        var columnNames = ["id"] + (discriminator != nil ? ["entity"] : []) + columns.map(\.name)
        switch kind {
        case .insert:
            try copy(into: "\(target) (\(columnNames.map(connection.quoteIdentifier).joined(separator: ", ")))")
        case .update:
            let temporary = try prepareTemporaryTable()
            try copy(into: connection.quoteIdentifier(temporary))
            columnNames.removeFirst()
            let assignments = columnNames.map { "\(connection.quoteIdentifier($0)) = u.\(connection.quoteIdentifier($0))" }.joined(separator: ", ")
            try connection.execute("UPDATE \(target) AS t SET \(assignments) FROM \(connection.quoteIdentifier(temporary)) AS u WHERE t.id = u.id")
        }
        rows.removeAll(keepingCapacity: true)
    }

    private func copy(into target: String) throws {
        let batch = rows
        try context.connection.copyIn("COPY \(target) FROM STDIN") { writer in
            for row in batch { try writer.writeRow(row) }
        }
    }

    /// A temporary table (id + the updated columns), created once and emptied per batch.
    private func prepareTemporaryTable() throws -> String {
        let connection = context.connection
        if let temporaryTable {
            try connection.execute("TRUNCATE \(connection.quoteIdentifier(temporaryTable))")
            return temporaryTable
        }
        let name = "_tm_update_\(table)_\(order)"
        let definitions = ["id bigint PRIMARY KEY"] + columns.map { "\(connection.quoteIdentifier($0.name)) \($0.type.rawValue)" }
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
