import EntityModel
import MigrationEngine
import Testing

/// Issue 34: the statements inferred for changes of enum types, each way.
struct InferredChangesEnumTests {
    static func version(_ name: String, enums: String, attributes: String = "status: { type: \"enum(state)\", default: \"new\" }") throws -> ModelVersion {
        try ModelVersion(name: name, yaml: "enums:\n\(enums)\nentities:\n  Order:\n    attributes:\n      \(attributes)\n", file: "\(name).yaml")
    }

    static func statements(_ from: ModelVersion, _ to: ModelVersion) throws -> [String] {
        let family = try ModelFamily(name: "F", versions: [from, to])
        return try MigrationPlanner(family: family).plan(from: from.name, to: to.name).steps.flatMap { $0.describe(inSchema: "s") }
    }

    @Test func aValueAddedIsAddedInTheCatalogAtItsPlace() throws {
        let v1 = try Self.version("v1", enums: "  state: [new, shipped]")
        let v2 = try Self.version("v2", enums: "  state: [draft, new, paid, shipped]")
        #expect(try Self.statements(v1, v2) == [#"ALTER TYPE "s"."state" ADD VALUE 'draft' BEFORE 'new'"#,
                                                #"ALTER TYPE "s"."state" ADD VALUE 'paid' AFTER 'new'"#])
    }

    @Test func aValueRenamedIsRenamedBothWays() throws {
        let v1 = try Self.version("v1", enums: "  state: [new, paid]")
        let v2 = try Self.version("v2", enums: "  state: { values: [new, settled], renamed: { settled: paid } }")
        #expect(try Self.statements(v1, v2) == [#"ALTER TYPE "s"."state" RENAME VALUE 'paid' TO 'settled'"#])
        #expect(try Self.statements(v2, v1) == [#"ALTER TYPE "s"."state" RENAME VALUE 'settled' TO 'paid'"#])
    }

    @Test func aValueRemovedRebuildsTheTypeAndTheWayDownAddsItBack() throws {
        let v1 = try Self.version("v1", enums: "  state: [new, paid, shipped]")
        let v2 = try Self.version("v2", enums: "  state: [new, shipped]")
        #expect(try Self.statements(v1, v2) == [
            #"ALTER TYPE "s"."state" RENAME TO "_tm_old_state""#,
            #"CREATE TYPE "s"."state" AS ENUM ('new', 'shipped')"#,
            #"ALTER TABLE "s"."order" ALTER COLUMN "status" DROP DEFAULT"#,
            #"ALTER TABLE "s"."order" ALTER COLUMN "status" TYPE "s"."state" USING (CASE WHEN "status"::text IN ('paid') THEN ('new')::text ELSE "status"::text END)::"s"."state""#,
            #"ALTER TABLE "s"."order" ALTER COLUMN "status" SET DEFAULT 'new'"#,
            #"DROP TYPE "s"."_tm_old_state""#,
        ])
        #expect(try Self.statements(v2, v1) == [#"ALTER TYPE "s"."state" ADD VALUE 'paid' AFTER 'new'"#])
    }

    @Test func aNewEnumIsCreatedBeforeItsColumnAndAnOldOneDroppedAfter() throws {
        let v1 = try ModelVersion(name: "v1", yaml: "entities:\n  Order:\n    attributes:\n      note: { type: string, optional: true }\n", file: "v1.yaml")
        let v2 = try Self.version("v2", enums: "  state: [new, paid]", attributes: "note: { type: string, optional: true }\n      status: { type: \"enum(state)\", optional: true }")
        #expect(try Self.statements(v1, v2) == [#"CREATE TYPE "s"."state" AS ENUM ('new', 'paid')"#,
                                                #"ALTER TABLE "s"."order" ADD COLUMN "status" "s"."state""#])
        let down = try Self.statements(v2, v1)
        #expect(down.last == #"DROP TYPE "s"."state""#, "\(down)")
    }
}
