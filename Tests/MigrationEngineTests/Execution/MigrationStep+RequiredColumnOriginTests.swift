import MigrationEngine
import TenantMigratorTestSupport
import Testing

/// Which step makes a column NOT NULL, for a violation PostgreSQL reports without a constraint's
/// name (23502: the table and the column): the one that sets NOT NULL on it (an optional attribute
/// made required, a new required one a mapping fills) or creates its table with it required.
@Suite("The step that makes a column required")
struct MigrationStepRequiredColumnOriginTests {
    @Test func aColumnMadeRequiredOrCreatedRequiredIsMadeByItsStep() throws {
        let step = try #require(try RequiredColumnsFamily.planner().plan(from: "v1", to: "v2").steps.first)
        #expect(step.makes(notNullOn: "bin", ofTable: "item"), "optional → required")
        #expect(step.makes(notNullOn: "shelf", ofTable: "item"), "new and required, filled by the mapping")
        #expect(step.makes(notNullOn: "label", ofTable: "tag"), "its table is created with it required")
        // Required already at v1 (the step does not make it so), optional at v2, another table's, none.
        for (table, column) in [("item", "code"), ("item", "id"), ("item", "note"), ("tag", "hint"), ("tag", "bin"), ("item", "label"), ("shelf", "bin")] {
            #expect(!step.makes(notNullOn: column, ofTable: table), "\(table).\(column)")
        }
    }

    /// The way back makes nothing required: `bin` optional again, `shelf` and `Tag` dropped.
    @Test func theWayBackMakesNoColumnRequired() throws {
        let family = try RequiredColumnsFamily.family()
        let back = try #require(try MigrationPlanner(family: family).plan(from: "v2", to: "v1").steps.first)
        for (table, column) in [("item", "bin"), ("item", "shelf"), ("item", "code"), ("tag", "label")] {
            #expect(!back.makes(notNullOn: column, ofTable: table), "\(table).\(column)")
        }
    }
}
