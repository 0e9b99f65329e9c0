import EntityModel
import MigrationEngine
import TypedSQL

extension OnlinePreconditions {
    /// Why the tenant cannot migrate online on Citus (``InSchemaOnlineRun``), or nil when it can.
    ///
    /// The run builds its shadow in the tenant's own schema under names of its own and swaps by
    /// renames (``InSchemaSwap``), which rename tables, indexes and sequences: the model's own
    /// enum types (`enums:`) and sequences (`sequences:`), which the shadow would need as
    /// `_tm_shadow_<name>` and the swap would rename too, are not covered yet. And a name that
    /// PostgreSQL would cut at 63 bytes under the shadow's or the retired tables' naming could
    /// meet another.
    var citusRefusal: String? { Self.citusRefusal(of: plan) }

    /// Why `plan` cannot run online on Citus (see ``citusRefusal``), or nil when it can.
    static func citusRefusal(of plan: MigrationPlan) -> String? {
        let versions = [plan.source] + plan.steps.map(\.destination)
        let schemas = versions.map { $0.relationalSchema() }
        if let type = schemas.flatMap(\.enumTypes).first {
            return "on Citus the run swaps its shadow in by renames inside the tenant's schema, which do not cover the model's enum types yet "
                + "(\(type.name)); migrate it offline (docs/Citus.md)"
        }
        if let sequence = schemas.flatMap(\.sequences).first {
            return "on Citus the run swaps its shadow in by renames inside the tenant's schema, which do not cover the model's own sequences yet "
                + "(\(sequence.name)); migrate it offline (docs/Citus.md)"
        }
        // The shadow's serial sequences are made under the shadow's names, without the options a
        // serial key's own sequence has (`start:`, `increment:`…): the tenant would drift from its model.
        if let (table, column) = schemas.lazy.flatMap(\.tables).compactMap({ table in
            table.columns.first { $0.generation == .serial && $0.sequenceOptions != nil }.map { (table.name, $0.name) }
        }).first {
            return "on Citus the run's shadow does not give a serial key's own sequence its options yet "
                + "(\(table).\(column)); migrate it offline (docs/Citus.md)"
        }
        // Catch-up's INSERT … SELECT statements cast such keys through STABLE functions (`date_in`,
        // `to_jsonb`), which Citus deparses for the worker into invalid SQL (42601, `AND ( IS NOT NULL)`).
        if let (table, column) = schemas.lazy.flatMap(\.tables).compactMap({ table in
            table.primaryKey.columns.compactMap { table.column(named: $0) }.first { !CapturedKey.isPlainText($0.type) }.map { (table.name, $0) }
        }).first {
            return "on Citus catch-up cannot find rows by a key of \(column.type) yet (\(table).\(column.name)): the casts its "
                + "statements need are STABLE functions, which Citus does not run in an INSERT … SELECT; migrate it offline (docs/Citus.md)"
        }
        let names = Set(schemas.flatMap { $0.tables.map(\.name) } + [TenantArchive.tableName]).sorted()
        let tooLong = TableNaming.citusShadow.tooLong(names) + InSchemaSwap.retired.tooLong(names)
        if !tooLong.isEmpty {
            return "on Citus the run names its shadow `_tm_shadow_<table>` inside the tenant's schema, and the name of \(Set(tooLong).sorted().joined(separator: ", ")) "
                + "would then pass PostgreSQL's \(TableNaming.maximumNameBytes) bytes; migrate it offline (docs/Citus.md)"
        }
        return nil
    }
}
