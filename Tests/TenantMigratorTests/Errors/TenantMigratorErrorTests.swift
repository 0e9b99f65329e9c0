import Testing
import TenantMigrator

/// Issue 35: the errors speak of one tenant in the singular.
@Suite("TenantMigratorError wording")
struct TenantMigratorErrorTests {
    @Test func aChangedModelSpeaksOfOneTenantInTheSingular() throws {
        let one = TenantMigratorError.modelChanged(version: "v1", file: "Recipes/v1.yaml", tenants: [try TenantName("acme")])
        #expect("\(one)".contains("since tenant acme reached it") && "\(one)".contains("a shape that tenant does not have"), "\(one)")
        #expect(!"\(one)".contains("those tenants"), "\(one)")
        let two = TenantMigratorError.modelChanged(version: "v1", file: "Recipes/v1.yaml", tenants: [try TenantName("acme"), try TenantName("globex")])
        #expect("\(two)".contains("a shape those tenants do not have"), "\(two)")
    }
}
