import EntityModel
import PostgresTestSupport
import Testing

/// The version hash covers the stored shape and nothing else.
struct CanonicalModelSerializerTests {
    static let base = """
        entities:
          Recipe:
            attributes:
              name: { type: string }
              type: { type: string, default: "Other", indexed: true }
              servings: { type: int16, optional: true }
              code: { type: uuid, unique: true, optional: true }
            relationships:
              ingredients: { destination: RecipeIngredient, toMany: true, inverse: recipe, deleteRule: cascade }
          RecipeIngredient:
            attributes:
              name: { type: string }
            relationships:
              recipe: { destination: Recipe, inverse: ingredients }
        """

    static func hash(_ yaml: String) throws -> String {
        try version(yaml).versionHash
    }

    @Test func isHexSHA256() throws {
        #expect(try Self.hash(Self.base).wholeMatch(of: /[0-9a-f]{64}/) != nil)
    }

    @Test func ignoresOrderCommentsWhitespaceAndStyle() throws {
        let rewritten = """
            # The same model, written differently.
            entities:
              RecipeIngredient:
                relationships:
                  recipe:
                    inverse: ingredients
                    destination: Recipe     # to-one
                attributes:
                  name:
                    type: string
                    optional: false


              Recipe:
                relationships:
                  ingredients: {deleteRule: cascade, inverse: recipe, toMany: true, destination: RecipeIngredient}
                attributes:
                  code: { unique: true, type: uuid, optional: true }
                  servings: { optional: true, type: int16 }
                  type: { indexed: true, default: Other, type: string }
                  name: { type: string, column: name }
            """
        #expect(try Self.hash(rewritten) == Self.hash(Self.base))
    }

    @Test(arguments: [
        ("renamingIdentifier on an attribute", "servings: { type: int16, optional: true }", "servings: { type: int16, optional: true, renamingIdentifier: portions }"),
        ("allowsNarrowing", "servings: { type: int16, optional: true }", "servings: { type: int16, optional: true, allowsNarrowing: true }"),
        ("renamingIdentifier on a relationship", "recipe: { destination: Recipe, inverse: ingredients }", "recipe: { destination: Recipe, inverse: ingredients, renamingIdentifier: dish }"),
        ("renamingIdentifier on an entity", "  Recipe:\n", "  Recipe:\n    renamingIdentifier: Dish\n"),
        ("minCount and maxCount", "toMany: true, inverse: recipe,", "toMany: true, minCount: 1, maxCount: 50, inverse: recipe,"),
        ("the default table name written out", "  Recipe:\n", "  Recipe:\n    table: recipe\n"),
        ("an equal default written differently", "default: \"Other\"", "default: 'Other'"),
    ])
    func unchangedBy(_ change: String, old: String, new: String) throws {
        let changed = Self.base.replacing(old, with: new)
        #expect(changed != Self.base, "the substitution applies")
        #expect(try Self.hash(changed) == Self.hash(Self.base), "\(change) must not change the hash")
    }

    @Test(arguments: [
        ("type", "servings: { type: int16", "servings: { type: int32"),
        ("optionality", "servings: { type: int16, optional: true }", "servings: { type: int16, optional: false }"),
        ("default", "default: \"Other\"", "default: \"Entrée\""),
        ("uniqueness", "code: { type: uuid, unique: true", "code: { type: uuid, unique: false"),
        ("index", "indexed: true", "indexed: false"),
        ("a new attribute", "  Recipe:\n    attributes:\n", "  Recipe:\n    attributes:\n      prepMinutes: { type: int32, optional: true }\n"),
        ("delete rule", "deleteRule: cascade", "deleteRule: deny"),
        ("table name", "  Recipe:\n", "  Recipe:\n    table: recipes\n"),
        ("column name", "servings: { type: int16, optional: true }", "servings: { type: int16, optional: true, column: portions }"),
        ("foreign-key column", "recipe: { destination: Recipe, inverse: ingredients }", "recipe: { destination: Recipe, inverse: ingredients, column: dish_id }"),
        ("relationship optionality", "recipe: { destination: Recipe, inverse: ingredients }", "recipe: { destination: Recipe, inverse: ingredients, optional: false }"),
    ])
    func changedBy(_ change: String, old: String, new: String) throws {
        let changed = Self.base.replacing(old, with: new)
        #expect(changed != Self.base, "the substitution applies")
        #expect(try Self.hash(changed) != Self.hash(Self.base), "\(change) must change the hash")
    }

    @Test func inheritanceIsPartOfTheShape() throws {
        let flat = "entities:\n  Attachment: {}\n  ImageAttachment: {}\n"
        let inherited = "entities:\n  Attachment: {}\n  ImageAttachment: { parent: Attachment }\n"
        let abstract = "entities:\n  Attachment: { abstract: true }\n  ImageAttachment: { parent: Attachment }\n"
        #expect(Set([try Self.hash(flat), try Self.hash(inherited), try Self.hash(abstract)]).count == 3)
    }

    @Test func entityHashesFollowTheirEntity() throws {
        let before = try version(Self.base)
        let after = try version(Self.base.replacing("servings: { type: int16", with: "servings: { type: int32"), name: "v2")
        #expect(before.entity(named: "Recipe")?.versionHash != after.entity(named: "Recipe")?.versionHash)
        #expect(before.entity(named: "RecipeIngredient")?.versionHash == after.entity(named: "RecipeIngredient")?.versionHash)
        #expect(before.entity(named: "Recipe")?.versionHash.count == 64)
    }

    @Test func subEntityHashCoversWhatItInherits() throws {
        let yaml = """
            entities:
              Attachment:
                attributes:
                  dateCreated: { type: date }
              ImageAttachment:
                parent: Attachment
                attributes:
                  caption: { type: string }
            """
        let before = try version(yaml)
        let after = try version(yaml.replacing("dateCreated: { type: date }", with: "dateCreated: { type: date, optional: true }"))
        #expect(before.entity(named: "ImageAttachment")?.versionHash != after.entity(named: "ImageAttachment")?.versionHash)
    }

    @Test func theVersionNameIsNotPartOfTheHash() throws {
        #expect(try version(Self.base, name: "v1").versionHash == version(Self.base, name: "v7").versionHash)
    }

    @Test func recipesV2AndV3ShareTheRecipeShape() throws {
        let family = try ModelFamily.load(from: PackagePaths.migrationFamily("Recipes"))
        let hashes = family.versions.map(\.versionHash)
        #expect(Set(hashes).count == 3)
        // v2 renames instructions to method through renamingIdentifier; v3 drops the identifier.
        #expect(family.versions[1].entity(named: "Recipe")?.versionHash == family.versions[2].entity(named: "Recipe")?.versionHash)
    }
}

/// The hash is recorded in every tenant's catalog, so its canonical form must only change on purpose
/// (with a new format line in `CanonicalModelSerializer`).
struct PinnedVersionHashTests {
    @Test func recipesHashesArePinned() throws {
        let family = try ModelFamily.load(from: PackagePaths.migrationFamily("Recipes"))
        #expect(family.versions[0].versionHash == "e9dae4e40be259bfb47297cbeb3ba17267a74fc06ae6877f798730986aa8f20c")
        #expect(family.versions[1].versionHash == "3c50505f6c1fda49f7f7b591fcc6fe0e5d3facea83c82c86437116aa590cb708")
        #expect(family.versions[2].versionHash == "4ac7167cca0a597e178b49ef355102d748a02a65f9755389ce33dd1f3aedd408")
    }
}
