import MigrationEngine

extension PlanDocument {
    /// The plan as an online run goes on Citus (``InSchemaOnlineRun``): a step that would run on
    /// the shadow and be caught up runs in the cutover there, while writes wait; `plan` says so
    /// and why.
    mutating func onCitus() {
        for index in sections.indices where sections[index].online?.kind == .shadow {
            sections[index].online = OnlineStepMode(.writesWait, InSchemaOnlineRun.reason)
        }
    }
}
