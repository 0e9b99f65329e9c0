import LibPQ
import MigrationEngine

extension OnlineContext {
    /// `error`, a failure of the online run, explained as an offline failure is
    /// (``FailureDiagnosis``): once the shadow is gone and the tenant's live tables are at the
    /// plan's source version, a data error of one of the plan's type changes (a value the app wrote
    /// during the run that does not fit a narrowed column) names the table, the column, the row and
    /// its value. The failed statement was the shadow's copy or catch-up, not the step's own cast,
    /// so the diagnosis is asked without it: the probe itself tries the step's cast on the live rows
    /// and finds a row only where that cast fails with the same SQLSTATE. A violated constraint
    /// (23xxx) is traced to the step that makes it (``MigrationStep/makes(constraintNamed:)``), a
    /// NULL in a required column (23502, which names no constraint) to the step that makes the
    /// column NOT NULL (``MigrationStep/makes(notNullOn:ofTable:)``). The step found becomes
    /// ``failedStep``; where none is, the step that failed on the shadow (if any) stays it.
    func explaining(_ error: any Error) -> any Error {
        if let (table, column) = requiredColumn(brokenBy: error) {
            // A column a step makes required, holding a NULL a row the copy or catch-up brought.
            failedStep = plan.plan.steps.first { $0.makes(notNullOn: column, ofTable: table) } ?? failedStep
            return error
        }
        let violated = (error as? ConstraintViolation)?.constraint
            ?? (error as? PQError).flatMap { $0.sqlState?.errorClass == "23" ? $0.constraint : nil }
        if let constraint = violated {
            // A constraint a step makes, broken by a row the copy or catch-up brought: its
            // validation on the shadow names it as the model does.
            failedStep = plan.plan.steps.first { $0.makes(constraintNamed: constraint) } ?? failedStep
            return error
        }
        guard var failure = error as? PQError, failure.sqlState?.errorClass == "22" else { return error }
        failure.statement = nil
        for step in plan.plan.steps {
            guard let diagnosis = FailureDiagnosis.diagnose(failure, in: step, schema: record.schema, on: run.connection) else { continue }
            failedStep = step
            var annotated = diagnosis.annotating(failure)
            annotated.statement = (error as? PQError)?.statement
            return annotated
        }
        return error
    }

    /// The model's table and the column of a NOT NULL violation (23502): the shadow's validation
    /// names them (``ConstraintViolation/column``), the server's own error spells the table as the
    /// shadow or the round's delta does (``shadowNaming``, ``delta``); nil for another error.
    private func requiredColumn(brokenBy error: any Error) -> (table: String, column: String)? {
        let violation = error as? ConstraintViolation
        guard let failure = violation?.underlying ?? (error as? PQError), failure.sqlState == .notNullViolation,
              let table = violation?.table ?? failure.table, let column = violation?.column ?? failure.column else { return nil }
        let modelName = [shadowNaming, delta.tables].lazy.compactMap { $0.modelName(of: table) }.first
        return (modelName ?? table, column)
    }
}
