import EntityModel

extension StepArchive {
    /// The enum types of the columns this step gives values or whole rows back into (its
    /// ``restorable`` entries, found by ``checkRestorable()``): a value of one of them the step
    /// added with `ADD VALUE` could not be written back in the same transaction (``AddedEnumValues``).
    func enumTypesRestored() -> Set<String> {
        var types: Set<String> = []
        for restore in plan.restores {
            for (table, column) in restorable[restore.key] ?? [] {
                if column.isEmpty {
                    guard let name = restore.toEnd.table(table), let target = restore.endSchema.table(named: name) else { continue }
                    types.formUnion(target.columns.compactMap(\.type.enumName))
                } else if let (name, target) = restore.toEnd.column(column, of: table),
                          let type = restore.endSchema.table(named: name)?.column(named: target)?.type.enumName {
                    types.insert(type)
                }
            }
        }
        return types
    }
}
