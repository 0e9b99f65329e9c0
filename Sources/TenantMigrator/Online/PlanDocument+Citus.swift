import MigrationEngine

extension PlanDocument {
    /// The plan as an online run goes on Citus (``InSchemaOnlineRun``): each step in the mode it
    /// has on plain PostgreSQL (the shadow, its catch-up rounds and the cutover are built inside
    /// the tenant's schema), and, for what that layout does not cover (the model's own enum types
    /// and sequences, a serial key's own sequence options, names too long for its prefixes), the
    /// reason the run refuses it (0A000), as the run would; what any run refuses there
    /// (``PlanDocument/unsupportedByServer``); and the constraints that keep their names there
    /// (``PlanDocument/keptConstraintNames``), each step's statements shown as they run.
    mutating func onCitus(_ plan: MigrationPlan) {
        onlineLayout = .tenantSchema
        let alterations = plan.inPlaceSequenceAlterations
        if !alterations.isEmpty { unsupportedByServer = alterations }
        // Citus cannot rename a distributed table's foreign key or check: the run keeps its name.
        for (index, step) in plan.steps.enumerated() where !step.keptConstraintNames.isEmpty {
            keptConstraintNames = (keptConstraintNames ?? []) + step.keptConstraintNames
            sections[index].statements = step.keepingConstraintNames().describe(inSchema: schema)
        }
        if onlineRefusal == nil, let reason = OnlinePreconditions.citusRefusal(of: plan) {
            onlineRefusal = reason
        }
    }
}
