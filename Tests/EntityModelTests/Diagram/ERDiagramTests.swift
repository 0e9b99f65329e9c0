import EntityModel
import Foundation
import PostgresTestSupport
import Testing

/// The Mermaid and DOT diagrams of the example families, compared with expected text kept in
/// `Tests/EntityModelTests/Golden/Diagrams` (regenerate with `TM_RECORD_GOLDEN=1` and review),
/// checked against Mermaid's erDiagram grammar, and held to what they must show.
struct ERDiagramTests {
    static let versions: [(family: String, version: String)] = [
        ("Recipes", "v1"), ("Recipes", "v2"), ("Recipes", "v3"),
        ("Library", "v1"), ("Library", "v2"), ("Library", "v3"),
    ]

    static func family(_ name: String) throws -> ModelFamily {
        try ModelFamily.load(from: name == "Library" ? PackagePaths.libraryFamily : PackagePaths.migrationFamily(name))
    }

    static func version(_ family: String, _ version: String) throws -> ModelVersion {
        try #require(try Self.family(family).version(named: version))
    }

    static func golden(_ name: String) -> URL {
        Fixtures.goldenDirectory.appendingPathComponent("Diagrams").appendingPathComponent(name)
    }

    @Test(arguments: versions)
    func mermaidAndDOTMatchTheirExpectedText(family: String, version: String) throws {
        let diagram = ERDiagram(version: try Self.version(family, version))
        let mermaid = diagram.mermaid(title: "\(family) \(version)")
        #expect(MermaidERSyntax.problems(in: mermaid) == [])
        try GoldenFile.compare(mermaid, with: Self.golden("\(family)-\(version).mmd"))
        try GoldenFile.compare(diagram.dot(title: "\(family) \(version)"), with: Self.golden("\(family)-\(version).dot"))
    }

    @Test func recipesV3ShowsCardinalitiesDeleteRulesAndSQLNames() throws {
        let mermaid = ERDiagram(version: try Self.version("Recipes", "v3")).mermaid()
        let lines = Set(mermaid.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        // A recipe has any number of ingredient lines (cascade); a line has at most one recipe.
        #expect(lines.contains("Recipe |o--o{ RecipeIngredient : \"ingredients (cascade) / recipe (nullify)\""))
        // The required to-one: exactly one ingredient per line; deny on the way back.
        #expect(lines.contains("Ingredient ||--o{ RecipeIngredient : \"recipeIngredients (deny) / ingredient (nullify)\""))
        #expect(lines.contains("string name UK"))
        #expect(lines.contains("string type \"indexed, default 'Other'\""))
        #expect(lines.contains("Ingredient ingredient FK \"column ingredient_id\""))
        #expect(lines.contains("Recipe recipe FK \"optional, column recipe_id\""))
        #expect(lines.contains("int32 servings \"optional\""))
    }

    @Test func libraryV3ShowsInheritanceManyToManyAndOneToOne() throws {
        let diagram = ERDiagram(version: try Self.version("Library", "v3"))
        let lines = Set(diagram.mermaid().split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(lines.contains("ImageAttachment |o..|| Attachment : \"is a\""))
        #expect(lines.contains("FileAttachment |o..|| Attachment : \"is a\""))
        #expect(lines.contains("int64 id PK \"abstract\""))
        #expect(lines.contains("string entity \"in table attachment\""))
        #expect(lines.contains("Artist }o--o{ Track : \"tracks (nullify) / artists (nullify), table artist_tracks\""))
        // A to-many without inverse: its join table, and nothing known on the way back.
        #expect(lines.contains("Note }o--o{ Tag : \"tags (nullify), table note_tags\""))
        // One-to-one: the key holder has FK and UK.
        #expect(lines.contains("Lyrics |o--o| Track : \"track (nullify) / lyrics (cascade)\""))
        #expect(lines.contains("Track track FK, UK \"optional, column track_id\""))
        #expect(lines.contains("uuid identifier UK \"column note_uuid\""))

        let dot = diagram.dot()
        #expect(dot.contains("\"Artist\" -> \"Track\" [arrowtail=crowodot, arrowhead=crowodot, label=\"Artist.tracks (nullify)\\nTrack.artists (nullify)\\ntable artist_tracks\"];"))
        #expect(dot.contains("\"ImageAttachment\" -> \"Attachment\" [dir=forward, arrowhead=empty, arrowsize=1.3];"))
        #expect(dot.contains("\"Note\" -> \"Attachment\" [arrowtail=teetee, arrowhead=crowodot"))
    }

    @Test func namesMermaidWouldReadAsKeywordsAreQuoted() throws {
        let version = try ModelVersion(name: "v1", entities: [
            Entity(name: "Class", attributes: [Attribute(name: "pk", type: .string), Attribute(name: "title", type: .string)],
                   relationships: [Relationship(name: "one", destination: "One", inverse: "classes")]),
            Entity(name: "One", relationships: [Relationship(name: "classes", destination: "Class", isToMany: true, inverse: "one")]),
        ])
        let mermaid = ERDiagram(version: version).mermaid(title: "Keywords \"quoted\"")
        #expect(MermaidERSyntax.problems(in: mermaid) == [])
        #expect(mermaid.contains("    \"Class\" {"))
        #expect(mermaid.contains("        string `pk`"))
        #expect(mermaid.contains("    \"One\" |o--o{ \"Class\" : \"classes (nullify) / one (nullify)\""))
        // The checker itself refuses the unquoted forms.
        #expect(!MermaidERSyntax.problems(in: "erDiagram\n    Class {\n        string name\n    }\n").isEmpty)
        #expect(!MermaidERSyntax.problems(in: "erDiagram\n    A {\n        string pk\n    }\n").isEmpty)
    }

    @Test func aStepIsOneDiagramWithItsChangesMarked() throws {
        let recipes = try Self.family("Recipes")
        let v1 = try #require(recipes.version(named: "v1")), v2 = try #require(recipes.version(named: "v2"))
        let up = ERDiagram(changesAlong: VersionPath(versions: [v1, v2], direction: .up))
        let recipe = try #require(up.boxes.first { $0.name == "Recipe" })
        #expect(recipe.change == nil)
        #expect(recipe.rows.first { $0.name == "method" }?.change == .renamed(from: "instructions"))
        #expect(recipe.rows.first { $0.name == "prepMinutes" }?.change == .added)
        #expect(recipe.rows.first { $0.name == "servings" }?.change == .changed("type int16 → int32"))
        #expect(recipe.rows.first { $0.name == "name" }?.change == nil)
        #expect(MermaidERSyntax.problems(in: up.mermaid()) == [])

        let down = ERDiagram(changesAlong: VersionPath(versions: [v2, v1], direction: .down))
        let recipeDown = try #require(down.boxes.first { $0.name == "Recipe" })
        #expect(recipeDown.rows.first { $0.name == "instructions" }?.change == .renamed(from: "method"))
        #expect(recipeDown.rows.first { $0.name == "prepMinutes" }?.change == .removed)

        let library = try Self.family("Library")
        let l2 = try #require(library.version(named: "v2")), l3 = try #require(library.version(named: "v3"))
        let attachments = ERDiagram(changesAlong: VersionPath(versions: [l2, l3], direction: .up))
        #expect(attachments.boxes.first { $0.name == "ImageAttachment" }?.change == .added)
        #expect(attachments.boxes.first { $0.name == "ImageAttachment" }?.rows.first { $0.name == "image" }?.change == .moved(from: "Attachment"))
        #expect(attachments.inheritance.contains { $0.child == "ImageAttachment" && $0.parent == "Attachment" && $0.change == .added })
        #expect(attachments.links.contains { $0.right.entity == "Tag" && $0.change == .added })
        #expect(attachments.links.contains { $0.right.entity == "Attachment" && $0.change == .changed("was attachments (cascade) / note (nullify)") })
        let back = ERDiagram(changesAlong: VersionPath(versions: [l3, l2], direction: .down))
        #expect(back.boxes.first { $0.name == "Tag" }?.change == .removed)
        #expect(back.boxes.first { $0.name == "Attachment" }?.rows.first { $0.name == "image" }?.change == .moved(from: "ImageAttachment"))
        #expect(back.inheritance.contains { $0.child == "FileAttachment" && $0.change == .removed })
        for diagram in [attachments, back] { #expect(MermaidERSyntax.problems(in: diagram.mermaid()) == []) }

        // A fused walk follows renames end to end: v1's instructions is v3's method.
        let v3 = try #require(recipes.version(named: "v3"))
        let fused = ERDiagram(changesAlong: VersionPath(versions: [v1, v2, v3], direction: .up))
        #expect(fused.boxes.first { $0.name == "Recipe" }?.rows.first { $0.name == "method" }?.change == .renamed(from: "instructions"))
        #expect(fused.boxes.first { $0.name == "Ingredient" }?.change == .added)
        #expect(fused.boxes.first { $0.name == "RecipeIngredient" }?.rows.first { $0.name == "unitOfMeasure" }?.change == .removed)
    }
}
