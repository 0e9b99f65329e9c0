import EntityModel
import Foundation
import TypedSQL

/// Builds a mapped step's account (see ``MappingModel/account(from:to:)``).
struct MappingAccountant {
    let model: MappingModel
    let differ: SchemaDiffer

    /// The step's mappings as they compile with `differ`'s names (a view of it, nothing stored).
    var compiler: MappingCompiler { MappingCompiler(differ: differ) }
    var source: ModelVersion { differ.source }

    /// Something that keeps a source column's values, for some rows.
    struct Claim {
        var fate: StepAccount.Fate
        /// The rows it keeps (nil: all).
        var rows: SQL?
        /// The rows it does not keep hold NULL in this column (its filter is `column IS NOT NULL`).
        var keepsEveryValue: Bool
        /// The destination column it writes from the value, in the source row's own row (in place).
        var derived: StepAccount.Location? = nil
        /// For a distinct mapping, which keeps one value per key (its first row's): the rows whose
        /// value it does not keep, as a predicate (see ``DistinctRows/rowsDiffering(in:)``).
        var merges: SQL? = nil
        /// Why, for the account: which mapping merges, by which key.
        var mergedBy: String? = nil
        /// Made by a distinct mapping, which reads the column and writes another table.
        var byDistinctMapping = false
        /// The mapping writes over the column itself, in the source row's own row (an expression
        /// that writes the column, a retyping copy, a policy that transforms it). A claim that
        /// only reads the column (to write another one, or another table) does not: a column
        /// that stays is carried where it is only read.
        var overwrites = false
        /// ``rows`` in model terms, for the account's sentences: `the Status rows an Issue links
        /// to through Issue.status`, `the rows mapping X selects (filter)`.
        var rowsInWords: String? = nil
        /// ``merges`` in model terms.
        var mergesInWords: String? = nil

        /// ``rows`` as the account's row set, with its words.
        var rowSet: StepAccount.RowSet? { rows.map { StepAccount.RowSet($0, words: rowsInWords) } }
    }

    func account() throws -> StepAccount {
        let claims = try self.claims()
        var result = StepAccount()
        for entry in differ.account.entries {
            guard case let .destroyed(change) = entry.fate else {
                result.entries += rewrittenThenBackfilled(entry, claims) ?? overwritten(entry, claims)
                continue
            }
            switch (entry.item.kind, change.kind) {
            case (.column, .dropColumn), (.column, .dropLinks), (.links, .dropTable), (.links, .dropLinks):
                let key = entry.item.column.map { entry.item.table + "." + $0 } ?? entry.item.table
                result.entries += resolve(entry, change, claims[key] ?? [])
            case (.column, .hideValues):
                result.entries += resolve(entry, change, retypingClaims(into: entry, claims: claims))
            case (.rows, .dropTable):
                result.entries += droppedTable(entry, change, claims)
            case (.rows, .deleteRows):
                result.entries += resolve(entry, change, retypingClaims(ofRemovedRows: entry))
            default:
                result.entries.append(entry)
            }
        }
        result.entries += try declaredLosses()
        result.names = differ.archiveNames
        return result
    }

    /// Keeps what the claims keep; what they leave is still destroyed, restricted to those rows.
    private func resolve(_ entry: StepAccount.Entry, _ change: DestructiveChange, _ claims: [Claim]) -> [StepAccount.Entry] {
        guard !claims.isEmpty else { return [entry] }
        var entries = claims.map { claim in
            StepAccount.Entry(entry.item.restricted(to: claim.rowSet), claim.fate, derived: claim.derived.map { [$0] })
        }
        // (A distinct mapping's claim covers its rows but for the values it merges.)
        if claims.contains(where: { ($0.rows == nil && $0.merges == nil) || $0.keepsEveryValue }) { return entries }
        let notNull: SQL = entry.item.column.map { " AND source.\(id: differ.currentName(ofOldColumn: $0, in: entry.item.table)) IS NOT NULL" } ?? ""
        var restricted = change
        let rest: StepAccount.RowSet
        if claims.contains(where: { $0.merges != nil }) {
            rest = mergedRest(claims, notNull: notNull)
            restricted.detail += ": " + claims.compactMap(\.mergedBy).joined(separator: "; ")
        } else {
            // In model terms where every claim's rows can be said so (the predicate is for counting and archiving).
            let words = claims.filter { $0.rows != nil }.compactMap(\.rowsInWords)
            let kept: [SQL] = claims.compactMap(\.rows).map { "(\($0))" }
            rest = StepAccount.RowSet("NOT (\(kept, joinedBy: " OR "))\(notNull)",
                                      words: words.count == claims.filter({ $0.rows != nil }).count
                                        ? "the rows outside " + words.joined(separator: " and ") + (notNull.isEmpty ? "" : ", where it holds a value") : nil)
            restricted.detail += rest.words.map { " (where no mapping reads it: \($0.dropFirst("the rows ".count)))" } ?? " (in the rows no mapping reads: \(rest.predicate))"
        }
        restricted.dependsOnData = true
        restricted.rowSet = StepAccount.RowSet.both(change.rowSet, rest).map { StepAccount.RowSet($0.sql) }
        entries.append(.init(entry.item.restricted(to: rest), .destroyed(restricted)))
        return entries
    }

    /// A column that stays, but that an in-place expression or policy rewrites in some rows:
    /// transformed there, carried in the others.
    private func overwritten(_ entry: StepAccount.Entry, _ claims: [String: [Claim]]) -> [StepAccount.Entry] {
        // (A retyping mapping overwrites the discriminator, whose entry is transformed.)
        guard entry.overwritesInPlace != true, let column = entry.item.column else { return [entry] }
        if case .transformed = entry.fate, column != "entity" { return [entry] }
        // (Reading a column to write another, or another table, does not rewrite it.)
        let rewriting = (claims[entry.item.table + "." + column] ?? []).filter { claim in
            if case .transformed = claim.fate { return claim.overwrites } else { return false }
        }
        guard !rewriting.isEmpty else { return [entry] }
        var entries = rewriting.map { StepAccount.Entry(entry.item.restricted(to: $0.rowSet), $0.fate, overwritesInPlace: true) }
        if !rewriting.contains(where: { $0.rows == nil }) {
            let words = rewriting.compactMap(\.rowsInWords)
            let rewritten: [SQL] = rewriting.compactMap(\.rows).map { "(\($0))" }
            let rest = StepAccount.RowSet("NOT (\(rewritten, joinedBy: " OR "))",
                                          words: words.count == rewriting.count ? "the rows outside " + words.joined(separator: " and ") : nil)
            entries.append(.init(entry.item.restricted(to: rest), entry.fate))
        }
        return entries
    }

    /// A column that becomes required with a default, which an in-place mapping writes in every
    /// row before the step backfills what it left NULL: one item, the mapping then the backfill,
    /// in every row (the inferred account's backfill of the NULLs and the carrying of the other
    /// values are both the mapping's now). Nil for any other entry; empty for the carried part.
    private func rewrittenThenBackfilled(_ entry: StepAccount.Entry, _ claims: [String: [Claim]]) -> [StepAccount.Entry]? {
        guard entry.item.kind == .column, let column = entry.item.column else { return nil }
        let all = differ.account.entries(table: entry.item.table, column: column)
        guard let backfill = all.first(where: { $0.overwritesInPlace == true }), case let .transformed(backfilled) = backfill.fate,
              let claim = (claims[entry.item.table + "." + column] ?? []).first(where: { $0.overwrites && $0.rows == nil }),
              case let .transformed(by) = claim.fate else { return nil }
        guard entry == backfill else { return [] }
        var item = entry.item
        item.rows = nil
        return [StepAccount.Entry(item, .transformed(by: "\(by), then \(backfilled)"), overwritesInPlace: true)]
    }

    /// A dropped table that mappings read: accounted column by column.
    private func droppedTable(_ entry: StepAccount.Entry, _ change: DestructiveChange, _ claims: [String: [Claim]]) -> [StepAccount.Entry] {
        guard let table = differ.old.table(named: entry.item.table),
              table.columns.contains(where: { claims[table.name + "." + $0.name] != nil }) else { return [entry] }
        var entries: [StepAccount.Entry] = []
        for column in table.columns where column.origin != .primaryKey && column.origin != .discriminator {
            let item = StepAccount.Item(kind: .column, table: table.name, column: column.name, property: differ.property(column.origin))
            var lost = change
            lost.kind = .dropColumn
            lost.column = column.name
            lost.detail = "drops \(table.name).\(column.name) (\(item.property ?? column.name)) with table \(table.name)"
            entries += resolve(.init(item, .destroyed(lost)), lost, claims[table.name + "." + column.name] ?? [])
        }
        return entries
    }

    // MARK: Claims

    /// Every claim on a source column ("table.column", source names) or join table.
    private func claims() throws -> [String: [Claim]] {
        var claims: [String: [Claim]] = [:]
        for mapping in model.entityMappings {
            guard let sourceTable = differ.old.table(forEntity: source.rootEntity(of: mapping.source)) else { continue }
            if mapping.distinct != nil {
                for (key, claim) in try distinctClaims(of: mapping, sourceTable: sourceTable.name) { claims[key, default: []].append(claim) }
                continue
            }
            let rows = try filterPredicate(of: mapping)
            let rowsInWords = Self.selection(of: mapping)
            /// A claim on a column (or, with `column` nil, a join table's links).
            func claim(_ table: String, _ column: String?, _ fate: StepAccount.Fate, reached: SQL? = nil, reachedInWords: String? = nil,
                       derived: StepAccount.Location? = nil, overwrites: Bool = false) {
                let own = table == sourceTable.name
                let keepsEveryValue = own && column.map { column in mapping.filter.map { isNotNullFilter($0, column: column, table: table) } ?? false } ?? false
                claims[column.map { table + "." + $0 } ?? table, default: []]
                    .append(Claim(fate: fate, rows: own ? rows : reached, keepsEveryValue: keepsEveryValue, derived: own ? derived : nil,
                                  overwrites: own && overwrites, rowsInWords: own ? rowsInWords : reachedInWords))
            }
            let inPlace = compiler.isInPlace(mapping)
            // Explicit expressions, and the key paths they (and relationship mappings) read.
            let expressions = mapping.attributes.map { ($0.expression, "mapping \(mapping.name): \(mapping.destination).\($0.attribute) = \($0.expression)",
                                                        inPlace ? destinationColumn(attribute: $0.attribute, of: mapping.destination) : nil) }
                + mapping.relationships.map { ($0.from, "mapping \(mapping.name): relationship \($0.relationship)",
                                               inPlace ? destinationColumn(relationship: $0.relationship, of: mapping.destination) : nil) }
            var read: Set<String> = []
            for (expression, by, written) in expressions {
                for source in reads(expression, from: mapping.source) {
                    let rewritten = written.map { source.table == sourceTable.name && sourceColumn(matching: $0, in: sourceTable) == source.column } ?? false
                    claim(source.table, source.column, .transformed(by: by), reached: source.reached, reachedInWords: source.reachedInWords,
                          derived: written, overwrites: rewritten)
                    if rewritten { read.insert(source.column) }
                }
            }
            // A to-one set to the row another mapping made from this very row is derived from
            // what that mapping reads of it (a status text that became a link to a Status row).
            for relationship in inPlace ? mapping.relationships : [] where relationship.from == "source" || relationship.from == "source.id" {
                guard let link = destinationColumn(relationship: relationship.relationship, of: mapping.destination) else { continue }
                for name in relationship.mappings {
                    // (A distinct mapping's rows are one per key: it accounts for what it merges itself.)
                    guard let target = model.entityMapping(named: name), !compiler.isInPlace(target), target.distinct == nil,
                          differ.old.table(forEntity: source.rootEntity(of: target.source))?.name == sourceTable.name else { continue }
                    for expression in target.attributes {
                        for read in reads(expression.expression, from: target.source) where read.table == sourceTable.name && read.reached == nil {
                            claim(read.table, read.column, .transformed(by: "mapping \(mapping.name): relationship \(relationship.relationship), to the row mapping \(name) made from it"),
                                  derived: link)
                        }
                    }
                }
            }
            // In place, every column the mapping writes loses the value it held in those rows.
            for (written, by) in inPlace ? writtenInPlace(by: mapping) : [] {
                // (An expression that reads the column it writes claims it already.)
                guard let column = sourceColumn(matching: written, in: sourceTable), !read.contains(column) else { continue }
                claim(sourceTable.name, column, .transformed(by: by), overwrites: true)
            }
            // Default attribute mappings into another table (INSERT … SELECT copies them).
            if !compiler.isInPlace(mapping), mapping.policy == nil, let destinationTable = compiler.destinationTable(of: mapping.destination) {
                let mentioned = Set(mapping.attributes.map(\.attribute))
                let sourceAttributes = source.allAttributes(of: mapping.source)
                for (declaredBy, attribute) in differ.destination.allAttributes(of: mapping.destination) where !mentioned.contains(attribute.name) {
                    guard let match = sourceAttributes.first(where: { $0.attribute.name == (attribute.renamingIdentifier ?? attribute.name) })
                            ?? sourceAttributes.first(where: { $0.attribute.name == attribute.name }),
                          let from = sourceTable.column(withOrigin: .attribute(entity: match.declaredBy, attribute: match.attribute.name)),
                          let to = destinationTable.column(withOrigin: .attribute(entity: declaredBy, attribute: attribute.name)) else { continue }
                    claim(sourceTable.name, from.name, .carried(to: .init(table: destinationTable.name, column: to.name)))
                }
            }
            // What a policy declares it transforms.
            if let name = mapping.policy, let policy = model.policies.makePolicy(named: name) {
                for property in policy.transforms {
                    for (table, column) in storage(of: property, of: mapping.source) {
                        claim(table, column, .transformed(by: "policy \(name) (mapping \(mapping.name))"), overwrites: true)
                    }
                }
            }
        }
        return claims
    }

    /// The destination column of an attribute (or a key-holding to-one) of `entity`.
    func destinationColumn(attribute: String? = nil, relationship: String? = nil, of entity: String) -> StepAccount.Location? {
        guard let table = compiler.destinationTable(of: entity) else { return nil }
        let destination = differ.destination
        if let attribute, let declaredBy = destination.allAttributes(of: entity).first(where: { $0.attribute.name == attribute })?.declaredBy,
           let column = table.column(withOrigin: .attribute(entity: declaredBy, attribute: attribute)) {
            return .init(table: table.name, column: column.name)
        }
        if let relationship, let declaredBy = destination.allRelationships(of: entity).first(where: { $0.relationship.name == relationship })?.declaredBy,
           let column = table.column(withOrigin: .relationship(entity: declaredBy, relationship: relationship)) {
            return .init(table: table.name, column: column.name)
        }
        return nil
    }

    /// The destination columns an in-place mapping writes: its expressions, its relationships, and
    /// for a retyping mapping the discriminator and the attributes it copies into other columns.
    private func writtenInPlace(by mapping: EntityMapping) -> [(StepAccount.Location, String)] {
        var written = mapping.attributes.compactMap { expression in
            destinationColumn(attribute: expression.attribute, of: mapping.destination).map { ($0, "mapping \(mapping.name) writes \(mapping.destination).\(expression.attribute)") }
        }
        written += mapping.relationships.compactMap { relationship in
            destinationColumn(relationship: relationship.relationship, of: mapping.destination).map { ($0, "mapping \(mapping.name) sets \(mapping.destination).\(relationship.relationship)") }
        }
        guard compiler.isRetyped(mapping), let table = compiler.destinationTable(of: mapping.destination) else { return written }
        if table.column(withOrigin: .discriminator) != nil {
            written.append((.init(table: table.name, column: "entity"), "mapping \(mapping.name): the rows become \(mapping.destination)"))
        }
        for copy in compiler.retypeCopies(of: mapping) {
            written.append((.init(table: table.name, column: copy.destination), "mapping \(mapping.name): \(mapping.destination) copies \(copy.attribute)"))
        }
        return written
    }

    /// The source column (of the table that became `location`'s) that the step keeps in `location`.
    private func sourceColumn(matching location: StepAccount.Location, in sourceTable: Table) -> String? {
        guard let column = location.column, differ.tableMatch[sourceTable.name] == location.table else { return nil }
        return differ.columnMatch[sourceTable.name]?.first(where: { $0.value == column })?.key
    }

    /// Where a source property of `entity` is stored: an attribute's or to-one's column, or a
    /// to-many's join table (column nil) or the inverse's foreign key.
    private func storage(of property: String, of entity: String) -> [(table: String, column: String?)] {
        guard let table = differ.old.table(forEntity: source.rootEntity(of: entity)) else { return [] }
        if let (declaredBy, _) = source.allAttributes(of: entity).first(where: { $0.attribute.name == property }),
           let column = table.column(withOrigin: .attribute(entity: declaredBy, attribute: property)) {
            return [(table.name, column.name)]
        }
        guard let (declaredBy, relationship) = source.allRelationships(of: entity).first(where: { $0.relationship.name == property }) else { return [] }
        if let column = table.column(withOrigin: .relationship(entity: declaredBy, relationship: property)) { return [(table.name, column.name)] }
        if let join = differ.old.joinTable(forEntity: declaredBy, relationship: property) { return [(join.name, nil)] }
        if let inverse = relationship.inverse,
           let owner = source.allRelationships(of: relationship.destination).first(where: { $0.relationship.name == inverse })?.declaredBy {
            if let join = differ.old.joinTable(forEntity: owner, relationship: inverse) { return [(join.name, nil)] }
            if let holder = differ.old.table(forEntity: source.rootEntity(of: owner)),
               let column = holder.column(withOrigin: .relationship(entity: owner, relationship: inverse)) { return [(holder.name, column.name)] }
        }
        return []
    }

    /// The source columns an expression reads: its key paths' last columns and the foreign keys
    /// they join through. A column of another table is read only in the rows the join reaches
    /// (`reached`, and in model terms `reachedInWords`: `the Status rows an Issue links to through
    /// Issue.status`).
    func reads(_ expression: String, from entity: String) -> [(table: String, column: String, reached: SQL?, reachedInWords: String?)] {
        var found: [(String, String, SQL?, String?)] = []
        for (_, path) in SourceKeyPath.occurrences(in: expression) {
            guard case let .success(resolved) = path.resolve(from: entity, in: source) else { continue }
            var current = entity
            var reached: SQL? = nil
            var reachedInWords: String? = nil
            for hop in resolved.hops {
                guard let holder = differ.old.table(forEntity: source.rootEntity(of: hop.entity)) else { break }
                if let key = holder.column(withOrigin: .relationship(entity: hop.entity, relationship: hop.relationship)) {
                    found.append((holder.name, key.name, reached, reachedInWords))
                    let live = differ.currentName(ofOldColumn: key.name, in: holder.name)
                    reached = "EXISTS (SELECT 1 FROM \(table: differ.currentName(ofOldTable: holder.name)) AS tm_holder WHERE tm_holder.\(id: live) = \(compiler.referenced("source", entity: hop.destination)))"
                    let article = hop.entity.first.map { "AEIOU".contains($0) } == true ? "an" : "a"
                    reachedInWords = "the \(hop.destination) rows \(article) \(hop.entity) links to through \(hop.entity).\(hop.relationship)"
                } else {
                    reached = nil
                    reachedInWords = nil
                }
                current = hop.destination
            }
            if resolved.column != "id", let table = differ.old.table(forEntity: source.rootEntity(of: current)) {
                found.append((table.name, resolved.column, resolved.hops.isEmpty ? nil : reached, resolved.hops.isEmpty ? nil : reachedInWords))
            }
        }
        return found
    }

    /// The mapping's filter as SQL over its source row (key paths joined), nil without a filter.
    func filterPredicate(of mapping: EntityMapping) throws -> SQL? {
        guard let filter = mapping.filter, let table = compiler.sourceTable(of: mapping.source) else { return nil }
        var selection = MappingCompiler.Selection()
        let rewritten = try compiler.rewrite(filter, from: mapping.source, into: &selection)
        guard !selection.joins.isEmpty else { return rewritten }
        if let key = compiler.sourceKey(of: mapping.source) {
            // A keyed row is the one its key names.
            let columns: [SQL] = key.map { "source.\(id: $0)" }
            return "(\(columns, joinedBy: ", ")) IN (SELECT \(columns, joinedBy: ", ") FROM \(selection.from(table)) WHERE \(rewritten))"
        }
        return "source.id IN (SELECT source.id FROM \(selection.from(table)) WHERE \(rewritten))"
    }

    /// The rows a mapping's filter selects, in words (nil without a filter).
    static func selection(of mapping: EntityMapping) -> String? {
        mapping.filter.map { "the rows mapping \(mapping.name) selects (\($0))" }
    }

    /// Whether a filter is exactly `[source.]column IS NOT NULL` for this column: the rows it
    /// skips have no value to lose.
    private func isNotNullFilter(_ filter: String, column: String, table: String) -> Bool {
        let words = filter.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        guard words.count == 4, words[1] == "is", words[2] == "not", words[3] == "null" else { return false }
        let name = words[0].hasPrefix("source.") ? String(words[0].dropFirst("source.".count)) : words[0]
        guard let entity = differ.old.table(named: table).flatMap({ t -> String? in if case let .entity(root) = t.origin { return root } else { return nil } }) else { return false }
        let columns = source.hierarchy(of: entity).flatMap { source.allAttributes(of: $0) }.filter { $0.attribute.name == name || $0.attribute.columnName == name }
        return columns.contains { $0.attribute.columnName == column } || name.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) == column
    }

    /// In-place mappings that retype rows of removed entities keep those rows.
    private func retypingClaims(ofRemovedRows entry: StepAccount.Entry) -> [Claim] {
        let removed = Set((entry.item.property ?? "").components(separatedBy: ", "))
        return model.entityMappings.compactMap { mapping in
            guard removed.contains(mapping.source), compiler.isInPlace(mapping),
                  differ.old.table(forEntity: source.rootEntity(of: mapping.source))?.name == entry.item.table else { return nil }
            return Claim(fate: .transformed(by: "mapping \(mapping.name): the rows become \(mapping.destination)"),
                         rows: (try? filterPredicate(of: mapping)) ?? nil, keepsEveryValue: false, rowsInWords: Self.selection(of: mapping))
        }
    }

    /// In-place mappings that retype rows into an entity that has a moved-down property keep its
    /// values in those rows.
    private func retypingClaims(into entry: StepAccount.Entry, claims: [String: [Claim]]) -> [Claim] {
        guard let column = entry.item.column, let oldTable = differ.old.table(named: entry.item.table),
              let oldColumn = oldTable.column(named: column), let newTable = differ.tableMatch[oldTable.name].flatMap(differ.new.table(named:)),
              let newName = differ.columnMatch[oldTable.name]?[column], let newColumn = newTable.column(named: newName),
              let owners = SchemaDiffer.owners(of: newColumn.origin, in: differ.destination),
              let oldOwners = SchemaDiffer.owners(of: oldColumn.origin, in: source) else { return [] }
        return model.entityMappings.compactMap { mapping in
            guard oldOwners.contains(mapping.source), owners.contains(mapping.destination), compiler.isInPlace(mapping) else { return nil }
            let rows = (try? filterPredicate(of: mapping)) ?? nil
            let keepsEveryValue = mapping.filter.map { isNotNullFilter($0, column: column, table: oldTable.name) } ?? false
            return Claim(fate: .carried(to: .init(table: newTable.name, column: newName)), rows: rows, keepsEveryValue: keepsEveryValue,
                         rowsInWords: Self.selection(of: mapping))
        }
    }

    // MARK: Declared losses

    /// The file's `loses:`, each entity mapping's, and each policy's.
    private func declaredLosses() throws -> [StepAccount.Entry] {
        var entries: [StepAccount.Entry] = model.loses.map { text in
            .init(.init(kind: .rows, table: ""), .destroyed(DestructiveChange(kind: .custom, table: "", detail: "\(model.file): \(text)")))
        }
        for mapping in model.entityMappings {
            var declared = mapping.loses.map { ($0, "mapping \(mapping.name)") }
            if let name = mapping.policy, let policy = model.policies.makePolicy(named: name) {
                declared += policy.loses.map { ($0, "policy \(name) (mapping \(mapping.name))") }
            }
            guard let table = differ.old.table(forEntity: source.rootEntity(of: mapping.source)) else { continue }
            for (loss, by) in declared {
                var column: String?
                if let attribute = loss.attribute, let (declaredBy, _) = source.allAttributes(of: mapping.source).first(where: { $0.attribute.name == attribute }) {
                    column = table.column(withOrigin: .attribute(entity: declaredBy, attribute: attribute))?.name
                }
                var selection = MappingCompiler.Selection()
                let rows = try loss.rows.map { StepAccount.RowSet(try compiler.rewrite($0, from: mapping.source, into: &selection),
                                                                  words: "the rows where \($0)") }
                let filter = try filterPredicate(of: mapping).map { StepAccount.RowSet($0, words: Self.selection(of: mapping)) }
                let predicate = StepAccount.RowSet.both(filter, rows)
                let what = loss.attribute.map { "\(mapping.source).\($0)" } ?? "rows of \(mapping.source)"
                entries.append(.init(.init(kind: column == nil ? .rows : .column, table: table.name, column: column,
                                           property: loss.attribute.map { "\(mapping.source).\($0)" }, rows: predicate),
                    .destroyed(DestructiveChange(kind: .custom, table: table.name, column: column, rows: predicate?.predicate,
                        dependsOnData: loss.rows != nil,
                        detail: "\(model.file): \(by) loses \(what)\(loss.rows.map { " where \($0)" } ?? ""): \(loss.reason)"))))
            }
        }
        return entries
    }
}

/// Quoting for the SQL predicates of an account, which are text (the account is a plain,
/// `Codable` value): PostgreSQL's quoting, with the tenant's schema left as the `{schema}`
/// placeholder (``StepAccount/RowSet/sql`` turns it back into the schema).
struct PlaceholderQuoting: SQLQuoting {
    static let schema = "{schema}"

    func quoteIdentifier(_ identifier: String) -> String {
        identifier == Self.schema ? identifier : PostgreSQLQuoting().quoteIdentifier(identifier)
    }

    func quoteLiteral(_ literal: String) -> String {
        PostgreSQLQuoting().quoteLiteral(literal)
    }

    /// `sql` as the account's text: the schema as `{schema}`.
    static func text(_ sql: SQL) -> String {
        sql.text(schema: schema, quoting: PlaceholderQuoting())
    }
}
