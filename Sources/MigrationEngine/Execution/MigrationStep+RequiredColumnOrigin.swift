import EntityModel

extension MigrationStep {
    /// Whether the step makes `column` of `table` NOT NULL, for a violation PostgreSQL reports
    /// without a constraint's name (23502 gives the table and the column): one of its operations
    /// sets NOT NULL on it (an optional attribute made required, a new required one a mapping
    /// fills), adds it NOT NULL, adds a primary key over it, or creates the table with it NOT NULL.
    /// `table` is the model's name (a shadow's or a delta's spelling is the caller's to undo).
    ///
    /// An online run's copy or catch-up fails so when a row, the app's among them, holds a NULL
    /// there; the failure belongs to the step that makes the column required, as offline, where
    /// the step's own statement fails (``makes(constraintNamed:)`` for a named constraint).
    public func makes(notNullOn column: String, ofTable table: String) -> Bool {
        program.operations.contains { operation in
            switch operation {
            case let .setNullable(name, made, false): name == table && made == column
            case let .addColumn(name, added): name == table && added.name == column && !added.isNullable
            case let .addPrimaryKey(name, _, columns, _): name == table && columns.contains(column)
            case let .createTable(created):
                created.name == table
                    && (created.primaryKey.columns.contains(column) || created.columns.contains { $0.name == column && !$0.isNullable })
            default: false
            }
        }
    }
}
