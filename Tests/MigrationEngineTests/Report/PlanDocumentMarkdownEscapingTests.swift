import EntityModel
import Foundation
import MigrationEngine
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

    /// The markdown's lines outside code fences hold no raw `<`, and every fence is closed only by
    /// a line of as many backquotes as opened it, with no longer run inside.
    static func problems(in markdown: String) -> [String] {
        var problems: [String] = []
        var fence: Int?
        let allowedTags = ["<details><summary>", "</summary>", "</details>"]
        // CommonMark ends a line at LF, CR or CRLF.
        let lines = markdown.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n").components(separatedBy: "\n")
        for line in lines {
            let run = line.prefix { $0 == "`" }.count
            if let open = fence {
                if run >= open && line.allSatisfy({ $0 == "`" }) { fence = nil; continue }
                let longest = line.split(whereSeparator: { $0 != "`" }).map(\.count).max() ?? 0
                if longest >= open { problems.append("a run of \(longest) backquotes inside a fence of \(open): \(line)") }
                continue
            }
            if run >= 3 { fence = run; continue }
            var rest = line
            for tag in allowedTags { rest = rest.replacingOccurrences(of: tag, with: "") }
            if rest.contains("<") { problems.append("raw < outside code: \(line)") }
            if rest.contains("](") && !rest.contains("\\]") { problems.append("a link: \(line)") }
            if line.hasPrefix("#") && !line.hasPrefix("# Hostile") && !line.hasPrefix("## ") { problems.append("a heading: \(line)") }
            if line.hasPrefix(">") { problems.append("a quote: \(line)") }
        }
        if fence != nil { problems.append("a fence is never closed") }
        return problems
    }

    @Test func hostileDefaultsAreTextInTheMarkdownPlan() throws {
        for old in Self.hostileDefaults {
            for new in Self.hostileDefaults where new != old {
                let markdown = try Self.document(old, new)
                #expect(markdown.contains("Thing.note changed"))
                let problems = Self.problems(in: markdown)
                #expect(problems.isEmpty, "\(old.debugDescription) → \(new.debugDescription): \(problems)")
            }
        }
    }
}
