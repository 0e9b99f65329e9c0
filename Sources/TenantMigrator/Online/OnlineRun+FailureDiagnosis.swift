import LibPQ
import MigrationEngine

extension OnlineContext {
    /// `error`, a failure of the online run, explained as an offline failure is
    /// (``FailureDiagnosis``): once the shadow is gone and the tenant's live tables are at the
    /// plan's source version, a data error of one of the plan's type changes (a value the app wrote
    /// during the run that does not fit a narrowed column) names the table, the column, the row and
    /// its value. The failed statement was the shadow's copy or catch-up, not the step's own cast,
    /// so the diagnosis is asked without it: the probe itself tries the step's cast on the live rows
    /// and finds a row only where that cast fails with the same SQLSTATE. The step found becomes
    /// ``failedStep``.
    func explaining(_ error: any Error) -> any Error {
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
}
