import EntityModel

/// A key path over the source row in a mapping expression: `source.name`, or through to-one
/// relationships, `source.ingredient.unitOfMeasure.name`, resolved by joins.
struct SourceKeyPath: Hashable, Sendable {
    /// The names after `source.`.
    let segments: [String]

    /// A resolved path: the to-one relationships to join through, then the column to read.
    struct Resolved: Hashable, Sendable {
        /// Each hop: the relationship's declaring entity, its name, and its destination.
        var hops: [Hop]
        /// The column of the last row: an attribute's column, a to-one's foreign key, or `id`.
        var column: String

        struct Hop: Hashable, Sendable { var entity: String, relationship: String, destination: String }
    }

    /// Resolves the path from `entity` in `version`, or returns why it cannot.
    func resolve(from entity: String, in version: ModelVersion) -> Result<Resolved, KeyPathError> {
        var current = entity
        var hops: [Resolved.Hop] = []
        for (index, name) in segments.enumerated() {
            let isLast = index == segments.count - 1
            if isLast, name == "id" { return .success(Resolved(hops: hops, column: "id")) }
            if let attribute = version.allAttributes(of: current).first(where: { $0.attribute.name == name }) {
                guard isLast else { return .failure(KeyPathError("\(current).\(name) is an attribute, so the key path cannot go on past it")) }
                return .success(Resolved(hops: hops, column: attribute.attribute.columnName))
            }
            guard let (declaredBy, relationship) = version.allRelationships(of: current).first(where: { $0.relationship.name == name }) else {
                let known = version.allAttributes(of: current).map(\.attribute.name) + version.allRelationships(of: current).map(\.relationship.name)
                return .failure(KeyPathError("\(current) has no attribute or relationship \"\(name)\" (it has \(known.sorted().joined(separator: ", ")))"))
            }
            guard !relationship.isToMany else {
                return .failure(KeyPathError("\(current).\(name) is to-many; key paths go through to-one relationships only"))
            }
            let schema = version.relationalSchema()
            let holdsForeignKey = schema.table(forEntity: version.rootEntity(of: declaredBy))?
                .column(withOrigin: .relationship(entity: declaredBy, relationship: name)) != nil
            if isLast, holdsForeignKey { return .success(Resolved(hops: hops, column: relationship.foreignKeyColumnName)) }
            hops.append(Resolved.Hop(entity: declaredBy, relationship: name, destination: relationship.destination))
            current = relationship.destination
            if isLast { return .success(Resolved(hops: hops, column: "id")) }
        }
        return .success(Resolved(hops: hops, column: "id"))
    }

    /// Every `source…` key path in an SQL expression, skipping string literals and quoted names.
    static func occurrences(in expression: String) -> [(range: Range<String.Index>, path: SourceKeyPath)] {
        var found: [(Range<String.Index>, SourceKeyPath)] = []
        var index = expression.startIndex
        func isWordCharacter(_ character: Character) -> Bool { character.isLetter || character.isNumber || character == "_" }
        while index < expression.endIndex {
            let character = expression[index]
            if character == "{", let close = expression[index...].firstIndex(of: "}") {
                // A placeholder: {schema}, {source:Entity}, {source:Entity.relationship}.
                index = expression.index(after: close)
                continue
            }
            if character == "'" || character == "\"" {
                // Skip the literal or quoted identifier ('' and "" escape themselves).
                var end = expression.index(after: index)
                while end < expression.endIndex, expression[end] != character { end = expression.index(after: end) }
                index = end < expression.endIndex ? expression.index(after: end) : end
                continue
            }
            if expression[index...].hasPrefix("source"), index == expression.startIndex || !isWordCharacter(expression[expression.index(before: index)]) {
                var end = expression.index(index, offsetBy: 6)
                var segments: [String] = []
                while end < expression.endIndex, expression[end] == "." {
                    let start = expression.index(after: end)
                    var stop = start
                    while stop < expression.endIndex, isWordCharacter(expression[stop]) { stop = expression.index(after: stop) }
                    guard stop > start else { break }
                    segments.append(String(expression[start..<stop]))
                    end = stop
                }
                if end == expression.endIndex || !isWordCharacter(expression[end]) {
                    found.append((index..<end, SourceKeyPath(segments: segments)))
                    index = end
                    continue
                }
            }
            index = expression.index(after: index)
        }
        return found
    }
}

struct KeyPathError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
