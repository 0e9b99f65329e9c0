import EntityModel
import TypedSQL

// A server that cannot rename a foreign key or check (Citus, on a distributed table: 0A000) runs
// a step without those renames. The constraint keeps the name it had: `verify` compares
// definitions, names aside, and a later step that drops or renames it by the model's name finds it
// by its definition (AdoptedNames). Nothing else changes: a rename moves no value.

extension SchemaOperation {
    /// A foreign key's or check's rename: it owns no index, so only `ALTER TABLE … RENAME
    /// CONSTRAINT` renames it (a primary key or unique constraint is renamed through its index).
    var renamesForeignKeyOrCheck: Bool {
        if case .renameConstraint(_, _, _, ownsIndex: false) = self { true } else { false }
    }
}

extension StepProgram {
    /// The program without its foreign keys' and checks' renames (``SchemaOperation/renamesForeignKeyOrCheck``).
    func keepingConstraintNames() -> StepProgram {
        func kept(_ statements: [Statement]) -> [Statement] { statements.filter { !$0.operation.renamesForeignKeyOrCheck } }
        return StepProgram(schemaChanges: kept(schemaChanges), dataMoves: kept(dataMoves), closing: kept(closing),
                           validatesClosing: validatesClosing, mappings: mappings, mapped: mapped)
    }
}

extension MigrationStep {
    /// The step as it runs on a server that cannot rename a foreign key or check
    /// (``ServerCapabilities/renamesForeignKeysAndChecks``): without those renames.
    public func keepingConstraintNames() -> MigrationStep {
        var step = self
        step.program = program.keepingConstraintNames()
        return step
    }

    /// The foreign keys and checks the step renames, one sentence each (`step v1 → v2: inferred
    /// keeps book's constraint novel_writer_id_fkey, which the model names book_author_id_fkey`):
    /// what ``keepingConstraintNames()`` leaves under its name.
    public var keptConstraintNames: [String] {
        program.operations.compactMap { operation in
            guard case let .renameConstraint(table, from, to, ownsIndex: false) = operation else { return nil }
            return "step \(self) keeps \(table)'s constraint \(from), which the model names \(to)"
        }
    }
}
