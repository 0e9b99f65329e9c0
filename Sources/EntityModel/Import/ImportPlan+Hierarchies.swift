extension ImportPlan {
    /// Reads single-table inheritance: a table with the discriminator column `entity` and the
    /// check `entity IN (…)` holds a hierarchy of those concrete entities. The column's default
    /// names a concrete root; without one the root is abstract and named after the table. A check
    /// `entity NOT IN ('X') OR col IS NOT NULL` places `col` on sub-entity `X` as a required
    /// property; the hierarchy's other columns are the root's (the schema does not say which
    /// sub-entity an optional column belongs to, and the tables are the same either way).
    mutating func readHierarchies() {
        var taken = Set(drafts.values.map(\.name.snakeCased))
        for tableName in drafts.keys.sorted() {
            var draft = drafts[tableName]!
            defer { drafts[tableName] = draft }
            guard let column = draft.table.column(named: SQLName.discriminatorColumn) else { continue }
            let element = "column \(tableName).\(SQLName.discriminatorColumn)"
            guard let check = draft.table.checks.first(where: { CatalogText.discriminatorValues($0) != nil }),
                  let values = CatalogText.discriminatorValues(check), column.type == "text", !column.isNullable else {
                note(.notExpressed, element, "the model reserves the column entity for the discriminator of an inheritance hierarchy "
                    + "(text NOT NULL with CHECK (entity IN (…))), and this one is not")
                continue
            }
            let root = column.defaultExpression.flatMap(CatalogText.literal)
            let subentities = values.filter { $0 != root }.sorted()
            let names = (root.map { [$0] } ?? []) + subentities
            guard !subentities.isEmpty, root.map(values.contains) ?? true,
                  names.allSatisfy({ SQLName.isIdentifier($0) && !SQLName.isReserved($0) }) else {
                note(.notExpressed, element, "its values \(values.joined(separator: ", ")) do not describe entities below a root "
                    + "(entity names, at least one besides the default)")
                continue
            }
            taken.remove(draft.name.snakeCased)
            let rootName = root ?? draft.name
            let clashing = ([rootName] + subentities).filter { taken.contains($0.snakeCased) }
                + (subentities.contains { $0.snakeCased == rootName.snakeCased } ? [rootName] : [])
            guard clashing.isEmpty else {
                note(.notExpressed, element, "the entities \(clashing.joined(separator: ", ")) clash with other entities' names")
                taken.insert(draft.name.snakeCased)
                continue
            }
            draft.name = rootName
            draft.isAbstract = root == nil
            taken.formUnion(([rootName] + subentities).map(\.snakeCased))
            draft.subentities = subentities
            draft.readColumns.insert(SQLName.discriminatorColumn)
            draft.readChecks.insert(check)
            for check in draft.table.checks {
                guard let requirement = CatalogText.requirement(check) else { continue }
                if requirement.entities.count == 1, subentities.contains(requirement.entities[0]),
                   draft.table.column(named: requirement.column)?.isNullable == true {
                    draft.placement[requirement.column] = requirement.entities[0]
                    draft.readChecks.insert(check)
                } else {
                    note(.notExpressed, "check on \(tableName)", "\(check) requires \(requirement.column) for several entities; "
                        + "the importer reads flat hierarchies (sub-entities right below the root), so \(requirement.column) is the root's")
                }
            }
            if draft.table.columns.contains(where: { $0.isNullable && draft.placement[$0.name] == nil }) {
                note(.adapted, "table \(tableName)", "its optional columns are the root \(draft.name)'s: the schema does not say which "
                    + "sub-entity each belongs to; move them to sub-entities if they belong there (the tables stay the same)")
            }
        }
    }
}
