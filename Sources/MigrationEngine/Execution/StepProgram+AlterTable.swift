import EntityModel
import TypedSQL

extension Array where Element == StepProgram.Statement {
    /// The statements with each run of adjacent column changes of one table (columns added,
    /// retyped, made nullable or not, dropped) as one `ALTER TABLE` with a clause per change, as a
    /// DBA would write it: one statement, one catalog update and one rewrite at most, instead of
    /// one of each per change.
    ///
    /// Only changes to distinct columns share a statement. PostgreSQL runs an `ALTER TABLE`'s
    /// clauses by kind (drops, then type changes, then additions, …) rather than in the order
    /// written, which changes nothing for clauses on distinct columns but would for two on the
    /// same one. An identity column is added alone (Citus refuses it among other clauses), and
    /// constraints, renames and everything else keep statements of their own. A merged statement
    /// carries its first change's operation.
    func mergingAlterTables() -> [StepProgram.Statement] {
        var merged: [StepProgram.Statement] = []
        var run: [(statement: StepProgram.Statement, table: String, column: String, clause: SQL)] = []
        func endRun() {
            guard let first = run.first else { return }
            if run.count == 1 {
                merged.append(first.statement)
            } else {
                merged.append(StepProgram.Statement(
                    sql: "ALTER TABLE \(table: first.table) \(run.map(\.clause), joinedBy: ", ")",
                    movesData: run.contains { $0.statement.movesData }, operation: first.statement.operation
                ))
            }
            run = []
        }
        for statement in self {
            guard let (table, column, clause) = statement.operation.alterTableClause, statement.operation.sharesAlterTable else {
                endRun()
                merged.append(statement)
                continue
            }
            if let first = run.first, first.table != table || run.contains(where: { $0.column == column }) {
                endRun()
            }
            run.append((statement, table, column, clause))
        }
        endRun()
        return merged
    }
}

extension SchemaOperation {
    /// Whether the operation's clause may share an `ALTER TABLE` with others.
    var sharesAlterTable: Bool {
        if case let .addColumn(_, column) = self { return !column.isIdentity }
        return alterTableClause != nil
    }
}
