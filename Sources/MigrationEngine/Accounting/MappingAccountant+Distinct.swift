import EntityModel
import TypedSQL

/// What a distinct mapping keeps of the source columns it reads.
///
/// A distinct mapping makes one row per key, from the key's first row: of the values of a column
/// it reads, it keeps the first row's, one per key. A row's own value is kept where it equals its
/// key's first row's and the row is linked to the row made for its key (a relationship mapping of
/// its own entity names the distinct mapping `from: source`); the other values of a key are
/// **merged**: where the column goes, they are destroyed in those rows only (a data-dependent
/// loss, archived like any other, so the way down gives them back). A column equal to the key
/// itself (`distinct: source.name`) is kept whole. Without a link, the mapping keeps which values
/// there were, not which row had which, and claims nothing.
extension MappingAccountant {
    /// The claims of a distinct mapping, by source "table.column".
    func distinctClaims(of mapping: EntityMapping, sourceTable: String) throws -> [(String, Claim)] {
        guard let distinct = mapping.distinct, let rows = try compiler.distinctRows(mapping) else { return [] }
        let by = "mapping \(mapping.name): one \(mapping.destination) per distinct \(distinct.key)"
        let scope = try filterPredicate(of: mapping)
        let scopeInWords = Self.selection(of: mapping)
        // The foreign key that links each row to the row made for its key: what the mapping derives
        // from the row's values there (the archive compares it before it gives them back).
        let link = self.link(to: mapping)
        let linked = link != nil
        var claims: [(String, Claim)] = []
        var seen: Set<String> = []
        for expression in readExpressions(of: mapping) {
            for read in reads(expression, from: mapping.source) where seen.insert(read.table + "." + read.column).inserted {
                let key = read.table + "." + read.column
                guard read.table == sourceTable, read.reached == nil else {
                    // A related row's column: read where the row is reached, as by any mapping.
                    claims.append((key, Claim(fate: .transformed(by: by), rows: read.reached, keepsEveryValue: false, byDistinctMapping: true, rowsInWords: read.reachedInWords)))
                    continue
                }
                guard linked else { continue }
                if isKey(distinct.key, column: read.column, of: mapping.source) {
                    claims.append((key, Claim(fate: .transformed(by: by), rows: scope, keepsEveryValue: false, derived: link, byDistinctMapping: true, rowsInWords: scopeInWords)))
                    continue
                }
                let column: SQL = "source.\(id: differ.currentName(ofOldColumn: read.column, in: read.table))"
                let merged = rows.rowsDiffering(in: column)
                // Not kept: the values it merges and, outside its filter, every value. (Its rows
                // are its scope: the merged ones are in it too, destroyed, but no `NOT (… IN …)`
                // reaches a statement the archive runs.)
                let notKept = scope.map { "(NOT (\($0)) AND \(column) IS NOT NULL) OR \(merged)" as SQL } ?? merged
                claims.append((key, Claim(
                    fate: .transformed(by: by), rows: scope, keepsEveryValue: false, derived: link, merges: notKept,
                    mergedBy: "mapping \(mapping.name) keeps one value per distinct \(distinct.key), its first row's "
                        + "(by \(distinct.orderBy.map { "\($0), then source.id" } ?? "source.id")); the other values of each key are merged into it",
                    byDistinctMapping: true, rowsInWords: scopeInWords,
                    mergesInWords: "the \(mapping.source) rows whose \(read.column) differs from their key's first row's (key \(distinct.key))"
                        + (scopeInWords.map { ", or outside \($0) where it holds a value" } ?? "")
                )))
            }
        }
        return claims
    }

    /// The rows no claim keeps, where some claims merge: outside every other claim's rows (and not
    /// NULL there), and among the rows each merging claim does not keep (whose NULLs count too: the
    /// value of the key's first row takes their place).
    func mergedRest(_ claims: [Claim], notNull: SQL) -> StepAccount.RowSet {
        let words = claims.map { claim in
            claim.merges == nil ? claim.rowsInWords.map { "outside \($0)" + (notNull.isEmpty ? "" : " where it holds a value") } : claim.mergesInWords
        }
        let parts: [SQL] = claims.map { claim in
            claim.merges.map { "(\($0))" } ?? "(NOT (\(claim.rows ?? "true"))\(notNull))"
        }
        return StepAccount.RowSet("\(parts, joinedBy: " AND ")", words: words.contains(nil) ? nil : words.compactMap { $0 }.joined(separator: ", and "))
    }

    /// Every expression whose columns the distinct mapping reads: its key, its attribute values
    /// (also those copied by name) and, for each relationship, the key path it follows or, to
    /// another distinct mapping, that mapping's key there.
    private func readExpressions(of mapping: EntityMapping) -> [String] {
        var expressions = [mapping.distinct?.key ?? ""] + mapping.attributes.map(\.expression)
        let mentioned = Set(mapping.attributes.map(\.attribute))
        let sourceAttributes = source.allAttributes(of: mapping.source)
        for (_, attribute) in differ.destination.allAttributes(of: mapping.destination) where !mentioned.contains(attribute.name) {
            if let match = sourceAttributes.first(where: { $0.attribute.name == (attribute.renamingIdentifier ?? attribute.name) })
                ?? sourceAttributes.first(where: { $0.attribute.name == attribute.name }) {
                expressions.append("source." + match.attribute.name)
            }
        }
        for relationship in mapping.relationships {
            if let target = relationship.mappings.first.flatMap(model.entityMapping(named:)), let key = target.distinct?.key {
                expressions.append(MappingCompiler.expression(key, at: relationship.from))
            } else {
                expressions.append(relationship.from)
            }
        }
        return expressions
    }

    /// The foreign key that links rows of the mapping's source entity to the rows it makes: of a
    /// mapping of one row per source row, in place, with a relationship to it `from: source`. Nil
    /// when no row is linked.
    private func link(to mapping: EntityMapping) -> StepAccount.Location? {
        let root = source.rootEntity(of: mapping.source)
        for other in model.entityMappings where other.distinct == nil && source.entity(named: other.source) != nil && source.rootEntity(of: other.source) == root {
            for relationship in other.relationships where relationship.mappings == [mapping.name] && relationship.from == "source" {
                if let column = destinationColumn(relationship: relationship.relationship, of: other.destination) { return column }
            }
        }
        return nil
    }

    /// Whether the key is exactly the key path `source.<attribute>` of this column: each row's
    /// value is its key, kept by the row made for it.
    private func isKey(_ key: String, column: String, of entity: String) -> Bool {
        let occurrences = SourceKeyPath.occurrences(in: key)
        guard occurrences.count == 1, let path = occurrences.first?.path, key.trimmingCharacters(in: .whitespaces) == (["source"] + path.segments).joined(separator: "."),
              case let .success(resolved) = path.resolve(from: entity, in: source) else { return false }
        return resolved.hops.isEmpty && resolved.column == column
    }
}
