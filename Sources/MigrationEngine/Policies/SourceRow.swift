import EntityModel
import Foundation
import LibPQ

/// One row of a mapping's source entity, as a policy sees it: values by attribute name
/// (`row.string("unitOfMeasure")`), and the ids of to-one relationships (`row.relatedID("recipe")`).
public struct SourceRow {
    /// The row's id.
    public let id: Int64
    let row: Row
    let columns: [String: Int]

    /// Decodes the attribute (or to-one relationship id) `name`; Optionals read NULL as nil.
    public func value<T: PQDecodable>(_ type: T.Type = T.self, _ name: String) throws -> T {
        guard let index = columns[name] else {
            throw RowDecodingError(column: name, type: T.self, reason: "the source entity has no attribute or to-one relationship of that name")
        }
        return try row.decode(T.self, at: index)
    }

    /// The attribute as text, nil when NULL.
    public func string(_ name: String) throws -> String? { try value(String?.self, name) }

    /// The id of the row a to-one relationship points at, nil when it points nowhere.
    public func relatedID(_ relationship: String) throws -> Int64? { try value(Int64?.self, relationship) }

    /// The ids of the rows a to-many relationship of the source entity links this row to, in id
    /// order, whatever stores it (a join table, or the inverse's foreign key), even when the
    /// step drops that storage. The policy must name the relationship in
    /// ``MigrationPolicy/transforms``, so the stream reads it in the same query.
    public func related(_ relationship: String) throws -> [Int64] {
        guard let index = columns[relationship] else {
            throw RowDecodingError(column: relationship, type: [Int64].self,
                                   reason: "the policy does not name this to-many relationship in `transforms`, or the source entity has none of that name")
        }
        guard let list = try row.decode(String?.self, at: index), !list.isEmpty else { return [] }
        return list.split(separator: ",").compactMap { Int64($0) }
    }
}
