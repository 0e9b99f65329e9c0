import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34 (attack): an entity's key changed between versions (fixture family KeyedKeyChange:
/// Country keyed by `code` at v1, by `name` from v2) was not migrated at all: v1 → v2 ran no
/// statement, exit 0, and `verify` then reported "table country: primary key is (code), expected
/// (name)". The inference changes no primary key, so the step is refused when it is planned, in
/// both directions, naming the entity and both keys, and nothing runs.
@Suite("Inference: a key changed between versions")
struct KeyChangeTests {
    @Test(arguments: [("v1", "v2"), ("v2", "v1"), ("v1", "v3")])
    func aKeyChangedBetweenVersionsIsRefusedWhenPlanned(_ from: String, _ to: String) throws {
        let family = try ModelFamily.load(from: fixture("KeyedKeyChange"))
        #expect {
            _ = try MigrationPlanner(family: family).plan(from: from, to: to)
        } throws: { error in
            let text = "\(error)"
            return text.contains("entity Country (table country) is keyed by (") && text.contains("a key that changes between versions is not migrated")
        }
    }
}
