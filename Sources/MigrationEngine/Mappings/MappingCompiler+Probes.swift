import EntityModel
import TypedSQL

/// What a mapping model's SQL resolves to, asked before it runs (``MappingTrust``): each entity
/// mapping's own expressions (attribute values, filter, `distinct:` key and order, relationship
/// key paths, and the `rows:` predicates of its and its policy's `loses:`, which the archive and
/// the count of lost rows put into their statements) as one `SELECT` over its source, rewritten
/// exactly as the compiled statements rewrite them. Everything else in those statements is the
/// compiler's own, schema-qualified SQL.
extension MappingCompiler {
    /// One expression of a mapping, as a probe names it in a refusal.
    struct Probe: Sendable {
        /// `Recipes/Mappings/v2-to-v3.yaml:12: mapping RecipeToRecipe`.
        let place: String
        /// `SELECT <expressions> FROM <source> … WHERE <filter> ORDER BY <distinct order>`.
        let query: SQL
    }

    /// The probe of `mapping` (nil when it writes no SQL of its own: a policy alone, no filter),
    /// with the `rows:` predicates of `losses` (its own and its policy's `loses:`).
    func probe(of mapping: EntityMapping, file: String, losses: [PolicyLoss] = []) throws -> Probe? {
        guard let sourceTable = sourceTable(of: mapping.source) else { return nil }
        var selection = Selection()
        var expressions: [SQL] = try mapping.attributes.map { try rewrite($0.expression, from: mapping.source, into: &selection) }
        for relationship in mapping.relationships where relationship.from != "source" {
            expressions.append(try rewrite(relationship.from, from: mapping.source, into: &selection))
        }
        var order: SQL = ""
        if let distinct = mapping.distinct {
            expressions.append(try rewrite(distinct.key, from: mapping.source, into: &selection))
            if let orderBy = distinct.orderBy { order = " ORDER BY \(try rewrite(orderBy, from: mapping.source, into: &selection))" }
        }
        for rows in losses.compactMap(\.rows) {
            expressions.append("(\(try rewrite(rows, from: mapping.source, into: &selection)))")
        }
        let filter: SQL = try mapping.filter.map { " WHERE (\(try rewrite($0, from: mapping.source, into: &selection)))" } ?? ""
        guard !expressions.isEmpty || mapping.filter != nil else { return nil }
        let list: [SQL] = expressions.isEmpty ? ["NULL"] : expressions.enumerated().map { "\($0.element) AS \(id: "e\($0.offset)")" }
        let place = "\(mapping.location.map { "\($0)" } ?? file): mapping \(mapping.name)"
        return Probe(place: place, query: "SELECT \(list, joinedBy: ", ") FROM \(selection.from(sourceTable))\(filter)\(order)")
    }
}
