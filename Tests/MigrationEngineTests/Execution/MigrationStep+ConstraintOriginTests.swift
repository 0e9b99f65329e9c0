import MigrationEngine
import TenantMigratorTestSupport
import Testing

/// Which step makes a constraint PostgreSQL names in a violation: the one whose destination has it
/// and whose source has no object of its definition (a renamed constraint is not made, a changed
/// one is).
@Suite("The step that makes a constraint")
struct MigrationStepConstraintOriginTests {
    @Test func aChangedConstraintIsMadeByItsStepARenamedOneIsNot() throws {
        let planner = MigrationPlanner(family: try RenamedConstraintsFamily.family())
        let rename = try #require(try planner.plan(from: "v1", to: "v2").steps.first)
        let change = try #require(try planner.plan(from: "v2", to: "v3").steps.first)
        for name in ["book_code_key", "book_pkey", "book_title_check", "book_author_id_fkey", "author_name_idx"] {
            #expect(!rename.makes(constraintNamed: name), "\(name): renamed, not made")
        }
        #expect(change.makes(constraintNamed: "book_title_check"), "its text changes")
        #expect(change.makes(constraintNamed: "book_author_id_fkey"), "its delete rule changes")
        for name in ["book_code_key", "book_pkey", "novel_title_check", "no_such_constraint"] {
            #expect(!change.makes(constraintNamed: name), "\(name)")
        }
        // The way back makes v2's check and foreign key again.
        let back = try #require(try planner.plan(from: "v3", to: "v2").steps.first)
        #expect(back.makes(constraintNamed: "book_title_check") && back.makes(constraintNamed: "book_author_id_fkey"))
    }
}
