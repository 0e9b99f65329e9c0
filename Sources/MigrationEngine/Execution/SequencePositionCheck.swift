import EntityModel
import LibPQ
import TypedSQL

/// Before a step narrows a sequence's bounds (a `maxValue` lowered, a `minValue` raised, a type
/// narrowed), the tenant's position must lie within the new ones: PostgreSQL would refuse the
/// `ALTER SEQUENCE` anyway, but as a "RESTART value" that names neither the sequence nor the
/// tenant. This reads each such sequence's position before the step changes anything and refuses
/// with both named (``SequencePositionOutOfBounds``).
struct SequencePositionCheck {
    let schema: String
    let step: String

    func run(_ changes: [SequenceChange], on connection: Connection) throws {
        for case let (name, keyTable, bounds)? in changes.map(\.narrowedBounds) {
            let query: SQL = keyTable.map { table in
                "SELECT coalesce(pg_catalog.pg_sequence_last_value(q.seqrelid), q.seqstart), pg_catalog.pg_sequence_last_value(q.seqrelid) IS NOT NULL "
                    + "FROM pg_catalog.pg_sequence AS q "
                    + "WHERE q.seqrelid = pg_catalog.pg_get_serial_sequence(\(qualifiedNameLiteral: table), \(literal: SQLName.primaryKeyColumn))::pg_catalog.regclass"
            } ?? "SELECT last_value, is_called FROM \(table: name)"
            guard let row = try connection.execute(query, schema: schema).first else { continue }
            let position = try row.decode(Int64.self, at: 0)
            guard !bounds.contains(position) else { continue }
            throw SequencePositionOutOfBounds(schema: schema, sequence: name, position: position, drawn: try row.decode(Bool.self, at: 1),
                                              bounds: bounds, step: step)
        }
    }
}

/// A step would give a sequence bounds that its position lies outside of. Nothing was changed.
public struct SequencePositionOutOfBounds: Error, Sendable, CustomStringConvertible {
    public let schema: String
    public let sequence: String
    /// The sequence's last value (drawn, with the values sessions cached, or its start where nothing was drawn yet).
    public let position: Int64
    public let drawn: Bool
    /// The bounds the step gives it.
    public let bounds: ClosedRange<Int64>
    /// `v2 → v3`.
    public let step: String

    /// PostgreSQL's code for the `ALTER SEQUENCE` it would refuse.
    public static let sqlState = "22023"

    public var description: String {
        "step \(step) cannot change the sequence \(schema).\(sequence): its position \(position) (\(drawn ? "the last value drawn, values sessions cached included" : "its start, nothing drawn yet")) "
            + "is outside the new bounds, minValue \(bounds.lowerBound) to maxValue \(bounds.upperBound); keep bounds that include \(position), "
            + "or move the sequence within them (setval) where no row keeps its values [SQLSTATE \(Self.sqlState)]"
    }
}
