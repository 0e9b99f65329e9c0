@testable import MigrationEngine
import Testing

/// The relations a step hook's `ANALYZE` or `VACUUM` names, as the judge reads them
/// (``PolicyStatementTrust/maintainedRelations(of:)``): as written (quoted, qualified), with
/// options and column lists skipped; nil for what is not of that form, so that it is refused.
@Suite struct PolicyStatementTrustMaintenanceTests {
    @Test(arguments: [
        ("ANALYZE recipe", ["recipe"]),
        ("analyze \"tenant_t\".\"recipe\" (name, \"type\"), tenant_t.recipe_ingredient;", ["\"tenant_t\".\"recipe\"", "tenant_t.recipe_ingredient"]),
        ("ANALYZE (VERBOSE false, SKIP_LOCKED) recipe", ["recipe"]),
        ("VACUUM FULL ANALYZE /* c */ recipe", ["recipe"]),
        ("ANALYZE", []),
        ("ANALYZE VERBOSE", []),
    ] as [(String, [String])])
    func relationsAreReadAsWritten(_ sql: String, _ names: [String]) {
        #expect(PolicyStatementTrust.maintainedRelations(of: sql) == names)
    }

    @Test(arguments: ["ANALYZE recipe; SELECT 1", "ANALYZE public.f()", "ANALYZE recipe,", "ANALYZE 'recipe'", "ANALYZE (VERBOSE recipe", "ANALYZE a (b"])
    func anythingElseIsNotReadAsRelations(_ sql: String) {
        #expect(PolicyStatementTrust.maintainedRelations(of: sql) == nil)
    }
}
