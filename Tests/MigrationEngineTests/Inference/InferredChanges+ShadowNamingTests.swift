import EntityModel
import Foundation
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import Testing
import TypedSQL

/// A step's statements rendered under a shadow's naming (``TableNaming/citusShadow``, for a
/// shadow inside the tenant's schema) name only the shadow's tables, indexes, sequences and
/// types in that schema, and give every index and index-backed constraint a name of the shadow's;
/// foreign keys and checks keep the model's names (their table's own; Citus cannot rename them).
@Suite("Inferred changes under a shadow's naming")
struct InferredChangesShadowNamingTests {
    func statements(_ directory: URL, _ from: String, _ to: String, policies: PolicyRegistry = PolicyRegistry()) throws -> [String] {
        let family = try ModelFamily.load(from: directory)
        let mappings = try MappingModel.loadAll(for: family, policies: policies)
        return try MigrationPlanner(family: family, mappings: mappings, hooks: policies).plan(from: from, to: to).steps
            .flatMap(\.statements).map { $0.text(schema: "s", tables: .citusShadow) }
    }

    func fixture(_ name: String) -> URL { PackagePaths.root.appendingPathComponent("Tests/MigrationEngineTests/Fixtures/\(name)") }

    @Test func everyNameInTheSchemaIsTheShadowsButForeignKeysAndChecksKeepTheirs() throws {
        let recipes = PackagePaths.migrationFamily("Recipes")
        let cases: [(String, [String])] = [
            ("Recipes v1 → v3", try statements(recipes, "v1", "v3", policies: RecipesPolicies.registry)),
            ("Recipes v3 → v1", try statements(recipes, "v3", "v1", policies: RecipesPolicies.registry)),
            ("EveryKind v1 → v2", try statements(fixture("EveryKind"), "v1", "v2")),
            ("BugTracker v1 → v3", try statements(fixture("BugTracker"), "v1", "v3")),
        ]
        var indexes = 0, foreignKeys = 0
        for (name, texts) in cases {
            #expect(!texts.isEmpty, "\(name)")
            for text in texts {
                for match in text.matches(of: /"s"\."([^"]+)"/) {
                    #expect(match.1.hasPrefix("_tm_shadow_"), "\(name): \(text)")
                }
                for match in text.matches(of: /INDEX "([^"]+)" ON/) {
                    indexes += 1
                    #expect(match.1.hasPrefix("_tm_shadow_"), "\(name): \(text)")
                }
                for match in text.matches(of: /CONSTRAINT "([^"]+)" (PRIMARY KEY|UNIQUE|FOREIGN KEY|CHECK)/) {
                    let isIndexBacked = match.2 == "PRIMARY KEY" || match.2 == "UNIQUE"
                    if match.2 == "FOREIGN KEY" { foreignKeys += 1 }
                    #expect(match.1.hasPrefix("_tm_shadow_") == isIndexBacked, "\(name): \(text)")
                }
            }
        }
        #expect(indexes > 0 && foreignKeys > 0, "the cases name indexes (\(indexes)) and foreign keys (\(foreignKeys))")
    }
}
