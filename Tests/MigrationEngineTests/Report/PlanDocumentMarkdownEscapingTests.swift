import EntityModel
import Foundation
import MigrationEngine
import PostgresTestSupport
import Testing

/// The Markdown plan is safe to publish whatever the models hold: names and defaults are text, never
/// HTML or Markdown, and no default can close the code fence it is shown in.
struct PlanDocumentMarkdownEscapingTests {
    static let hostileDefaults = [
        "<svg onload=alert(1)>", "x\n```\n<img src=x onerror=alert(1)>\n```sql", "````` [a](javascript:alert(1)) *b* _c_ | d",
        "# heading\n- item\n> quote", "&lt;script&gt;", "line\r\nbreak\u{2028}sep",
    ]

    /// Recipes-like v1 → v2 whose `note` default changes from one hostile text to another.
    static func document(_ old: String, _ new: String) throws -> String {
        func version(_ name: String, _ value: String) throws -> ModelVersion {
            try ModelVersion(name: name, entities: [Entity(name: "Thing", attributes: [
                Attribute(name: "note", type: .string, isOptional: true, defaultValue: .string(value)),
            ])])
        }
        let family = try ModelFamily(name: "Hostile", versions: [try version("v1", old), try version("v2", new)])
        let plan = try MigrationPlanner(family: family).plan(from: "v1", to: "v2")
        return PlanDocument(plan: plan, schema: "tenant_acme").markdown()
            + PlanDocument(checking: MigrationPlanner(family: family)).markdown()
    }

    @Test func hostileDefaultsAreTextInTheMarkdownPlan() throws {
        for old in Self.hostileDefaults {
            for new in Self.hostileDefaults where new != old {
                let markdown = try Self.document(old, new)
                #expect(markdown.contains("Thing.note changed"))
                let problems = MarkdownSafety.problems(in: markdown, headings: ["# Hostile", "## "])
                #expect(problems.isEmpty, "\(old.debugDescription) → \(new.debugDescription): \(problems)")
            }
        }
    }
}
