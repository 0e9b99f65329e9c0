import EntityModel

extension MigrationStep {
    /// Whether the step makes the constraint or unique index that PostgreSQL names in a violation
    /// (23xxx, `PG_DIAG_CONSTRAINT_NAME`): one of its operations creates a table that has it, or
    /// adds it (a renamed constraint is not made; a changed one is, added again).
    ///
    /// An online run's copy or catch-up fails on such a constraint when a row, the app's among
    /// them, does not meet it; the failure belongs to the step that makes it, as offline, where the
    /// step's own statement fails.
    public func makes(constraintNamed name: String) -> Bool {
        program.operations.contains { operation in
            switch operation {
            case let .createTable(table): AdoptedNames.Definition.all(of: table).contains { $0.name == name }
            case let .addForeignKey(_, key), let .replaceForeignKey(_, key): key.name == name
            case let .addUnique(_, unique): unique.name == name
            case let .addCheck(_, check): check.name == name
            case let .addPrimaryKey(_, made, _, _): made == name
            case let .createIndex(_, index): index.name == name
            default: false
            }
        }
    }
}
