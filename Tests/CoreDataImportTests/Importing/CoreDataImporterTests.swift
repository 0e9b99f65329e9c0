import CoreDataImport
import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import Testing

/// `model import --xcdatamodeld` in the library, on bundles written for these tests from the
/// format Xcode saves (`Fixtures/*.xcdatamodeld`: `.xccurrentversion` and one
/// `<Name>.xcdatamodel/contents` per version).
///
/// Kitchen has three versions. Kitchen → Kitchen 2 renames `Recipe.instructions` to `method` and
/// the entity `Photo` to `Picture` through Xcode's renaming identifier (`elementID`), adds the
/// optional `prepMinutes`, makes `rating` optional and adds `Tag`, many-to-many with `Recipe`.
/// Kitchen 2 → Kitchen 3 removes `sourceURL`, moves `caption` up from `Picture` to `Media`, and
/// adds the required `isPantryStaple` with a default. Pantry changes an attribute's type.
struct CoreDataImporterTests {
    static let fixtures = PackagePaths.root.appendingPathComponent("Tests/CoreDataImportTests/Fixtures")

    static func kitchen() throws -> CoreDataImporter.Result {
        try CoreDataImporter.importBundle(at: fixtures.appendingPathComponent("Kitchen.xcdatamodeld"))
    }

    @Test func everyVersionInTheBundlesOrder() throws {
        let result = try Self.kitchen()
        #expect(result.family.name == "Kitchen")
        #expect(result.family.versionNames == ["Kitchen", "Kitchen-2", "Kitchen-3"])
        #expect(result.sources["Kitchen-2"] == "Kitchen.xcdatamodeld/Kitchen 2.xcdatamodel/contents")
        #expect(!result.notes.contains { $0.element == "version order" })
    }

    @Test func entitiesAttributesRelationshipsAndRenamesAreCarried() throws {
        let family = try Self.kitchen().family
        let v1 = try #require(family.version(named: "Kitchen")), v2 = try #require(family.version(named: "Kitchen-2"))
        let v3 = try #require(family.version(named: "Kitchen-3"))

        // Inheritance: an abstract parent with two sub-entities in one table.
        #expect(v1.entity(named: "Media")?.isAbstract == true)
        #expect(v1.subentities(of: "Media") == ["Photo", "Video"])
        #expect(v1.relationalSchema().tables.map(\.name) == ["ingredient", "ingredient_recipes", "media", "recipe"])
        // The renaming identifier: elementID="Photo" on Picture, elementID="instructions" on method.
        #expect(v2.entity(named: "Picture")?.renamingIdentifier == "Photo")
        #expect(v2.entity(named: "Recipe")?.attribute(named: "method")?.renamingIdentifier == "instructions")
        #expect(v3.entity(named: "Recipe")?.attribute(named: "method")?.renamingIdentifier == nil, "same identifier, same name: no rename")
        // Many-to-many, the inverse named; one-to-many with its delete rule; a required to-one.
        let ingredients = try #require(v1.entity(named: "Recipe")?.relationship(named: "ingredients"))
        #expect(ingredients.isToMany && ingredients.inverse == "recipes" && ingredients.deleteRule == .nullify)
        #expect(v2.entity(named: "Tag")?.relationship(named: "recipes")?.isToMany == true)
        #expect(v1.entity(named: "Recipe")?.relationship(named: "media")?.deleteRule == .cascade)
        #expect(v1.entity(named: "Media")?.relationship(named: "recipe")?.isOptional == false)
        // Uniqueness constraints, fetch index, optional and defaults of every kind.
        let recipe = try #require(v1.entity(named: "Recipe"))
        #expect(recipe.attribute(named: "name")?.unlocated == Attribute(name: "name", type: .string, defaultValue: .string("Untitled"), isUnique: true))
        #expect(v2.entity(named: "Tag")?.attribute(named: "label")?.isUnique == true)
        #expect(v1.entity(named: "Ingredient")?.attribute(named: "name")?.isIndexed == true)
        #expect(recipe.attribute(named: "rating")?.unlocated == Attribute(name: "rating", type: .double, defaultValue: .floatingPoint(0)))
        #expect(v2.entity(named: "Recipe")?.attribute(named: "rating")?.isOptional == true)
        #expect(recipe.attribute(named: "servings")?.unlocated == Attribute(name: "servings", type: .int16, isOptional: true, defaultValue: .integer(2)))
        #expect(recipe.attribute(named: "isFavorite")?.defaultValue == .bool(false))
        #expect(recipe.attribute(named: "createdAt")?.defaultValue == .date("2024-01-01T00:00:00Z"))
        #expect(v1.entity(named: "Ingredient")?.attribute(named: "quantity")?.defaultValue == .decimal("1"))
        #expect(v3.entity(named: "Ingredient")?.attribute(named: "isPantryStaple")?.unlocated == Attribute(name: "isPantryStaple", type: .bool, defaultValue: .bool(false)))
        // Types without a counterpart of the same name, and a reserved name.
        #expect(recipe.attribute(named: "keywords")?.type == .json)
        #expect(recipe.attribute(named: "sourceURL")?.type == .string)
        #expect(recipe.attribute(named: "identifier")?.type == .uuid)
        #expect(recipe.attribute(named: "isEditing") == nil, "transient")
    }

    @Test func whatTheModelCannotCarryIsListedWithItsFileAndLine() throws {
        let notes = try Self.kitchen().notes.map(\.description)
        let file = "Kitchen.xcdatamodeld/Kitchen.xcdatamodel/contents"
        for expected in [
            "not expressed: Kitchen: Recipe.isEditing: a transient attribute is not stored (\(file):24)",
            "not expressed: Kitchen: fetchedProperty Recipe.sameRating: the model has stored attributes and relationships only (\(file):33)",
            "not expressed: Kitchen: fetchRequest FavoriteRecipes: the model has entities, attributes and relationships only (\(file):46)",
            "not expressed: Kitchen: configuration Cloud: the model has entities, attributes and relationships only (\(file):47)",
            "adapted: Kitchen: Recipe.id: the model owns the columns id and entity, and names starting with _; it is identifier (\(file):22)",
            "adapted: Kitchen: Recipe.keywords: a Transformable [String] is stored as json; its values move as JSON, not as archived bytes (\(file):26)",
            "adapted: Kitchen: Recipe.sourceURL: a URI is stored as its text (string) (\(file):30)",
        ] {
            #expect(notes.contains(expected), "no note \(expected) in \(notes)")
        }
    }

    /// What `check` says of each step, and the Core Data rule that decides the same step (Apple,
    /// "Using Lightweight Migration"): every step of Kitchen is inferred, as Core Data infers it;
    /// Pantry's type change needs a mapping model, as in Core Data.
    @Test func checkInfersTheStepsCoreDataWouldInfer() throws {
        let planner = MigrationPlanner(family: try Self.kitchen().family)
        let checks = Dictionary(uniqueKeysWithValues: planner.checkFamily().map { ("\($0.source) → \($0.destination)", $0) })
        // Renaming an entity or property through the renaming identifier; addition of an
        // attribute (optional); a non-optional attribute becoming optional; a new entity and its
        // relationships: inferred, nothing destroyed.
        guard case .inferred(let first)? = checks["Kitchen → Kitchen-2"]?.resolution else {
            Issue.record("Kitchen → Kitchen-2 is not inferred: \(String(describing: checks["Kitchen → Kitchen-2"]))")
            return
        }
        #expect(first.isEmpty)
        // Removal of an attribute (its values are dropped, as Core Data drops them); a property
        // moved up the hierarchy; a new non-optional attribute with a default value: inferred.
        guard case .inferred(let second)? = checks["Kitchen-2 → Kitchen-3"]?.resolution else {
            Issue.record("Kitchen-2 → Kitchen-3 is not inferred: \(String(describing: checks["Kitchen-2 → Kitchen-3"]))")
            return
        }
        #expect(second.map(\.kind) == [.dropColumn])
        #expect(second.first?.column == "source_url")

        // The renamed values are carried, not dropped and added.
        let account = try planner.plan(from: "Kitchen", to: "Kitchen-2").steps[0].account
        #expect(account.entries(table: "recipe", column: "instructions").map(\.fate) == [.carried(to: StepAccount.Location(table: "recipe", column: "method"))])

        // Changing an attribute's type (String to Integer 32) needs a mapping model.
        let pantry = try CoreDataImporter.importBundle(at: Self.fixtures.appendingPathComponent("Pantry.xcdatamodeld"))
        let pantryCheck = MigrationPlanner(family: pantry.family).checkFamily().first { $0.source == "Pantry" }
        #expect(pantryCheck?.isPossible == false, "\(String(describing: pantryCheck))")
    }

    /// The inferred path runs on PostgreSQL and keeps the data through the renames and the move.
    @Test func theImportedFamilyMigratesRowsAcrossItsVersions() async throws {
        let family = try Self.kitchen().family
        let planner = MigrationPlanner(family: family)
        try await TestPostgres.withDatabase { connection in
            try connection.fixtureScript("CREATE SCHEMA kitchen")
            for statement in try #require(family.version(named: "Kitchen")).relationalSchema().createStatements(inSchema: "kitchen", quoting: connection) {
                try connection.fixtureScript(statement)
            }
            try connection.fixtureScript("""
                INSERT INTO kitchen.recipe (name, instructions, rating) VALUES ('Soup', 'Stir.', 4.5), ('Tea', NULL, 3);
                INSERT INTO kitchen.media (entity, recipe_id, caption, image_data) VALUES ('Photo', 1, 'steam', '\\x01');
                INSERT INTO kitchen.media (entity, recipe_id, duration, url) VALUES ('Video', 2, 30, 'https://example.com/tea');
                """)
            let plan = try planner.plan(from: "Kitchen", to: "Kitchen-3")
            _ = try connection.transaction { try plan.run(inSchema: "kitchen", on: $0) }
            let recipes = try connection.execute("SELECT name || ':' || coalesce(method, '∅') || ':' || rating FROM kitchen.recipe ORDER BY id")
            #expect(try recipes.map { try $0.decode(String.self, at: 0) } == ["Soup:Stir.:4.5", "Tea:∅:3"])
            let media = try connection.execute("SELECT entity || ':' || coalesce(caption, '∅') FROM kitchen.media ORDER BY id")
            #expect(try media.map { try $0.decode(String.self, at: 0) } == ["Picture:steam", "Video:∅"])
            let live = try SchemaSnapshot.read(schema: "kitchen", on: connection)
            #expect(live.differences(from: try SchemaSnapshot.expected(for: family.latestVersion, on: connection)) == [])
        }
    }

    @Test func theFamilyIsWrittenAndLoadsBack() throws {
        let result = try Self.kitchen()
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: parent) }
        let directory = try result.family.write(into: parent)
        let loaded = try ModelFamily.load(from: directory)
        #expect(loaded.versionNames == result.family.versionNames)
        for (written, read) in zip(result.family.versions, loaded.versions) { #expect(written.versionHash == read.versionHash) }
        #expect(throws: FamilyWriteError.exists(directory.path)) { try result.family.write(into: parent) }
    }

    @Test func brokenBundlesAreNamedWithTheirFileAndLine() throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: parent) }
        let bundle = parent.appendingPathComponent("Broken.xcdatamodeld")
        let version = bundle.appendingPathComponent("Broken.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data("<?xml version=\"1.0\"?>\n<model>\n  <entity name=\"A\">\n</model>\n".utf8).write(to: version.appendingPathComponent("contents"))
        #expect {
            try CoreDataImporter.importBundle(at: bundle)
        } throws: { error in
            guard case let .unreadable(file, line, _)? = error as? CoreDataImportError else { return false }
            return file == "Broken.xcdatamodeld/Broken.xcdatamodel/contents" && line == 4
        }
        // XML that parses but breaks a rule of the model: the validation names the file and line.
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <model type="com.apple.IDECoreDataModeler.DataModel">
                <entity name="Recipe">
                    <attribute name="name" attributeType="String"/>
                    <relationship name="chef" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Chef"/>
                </entity>
            </model>
            """
        try Data(xml.utf8).write(to: version.appendingPathComponent("contents"))
        #expect {
            try CoreDataImporter.importBundle(at: bundle)
        } throws: { error in
            "\(error)".contains("Broken.xcdatamodeld/Broken.xcdatamodel/contents:5: ") && "\(error)".contains("Chef")
        }
        #expect(throws: CoreDataImportError.notABundle(parent.path)) { try CoreDataImporter.importBundle(at: parent) }
        let empty = parent.appendingPathComponent("Empty.xcdatamodeld")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(throws: CoreDataImportError.noVersions(empty.path)) { try CoreDataImporter.importBundle(at: empty) }
    }

    /// One `.xcdatamodel` on its own is a family of one version.
    @Test func aSingleModelVersionImportsAlone() throws {
        let result = try CoreDataImporter.importBundle(at: Self.fixtures.appendingPathComponent("Kitchen.xcdatamodeld/Kitchen 2.xcdatamodel"), familyName: "Kitchen")
        #expect(result.family.versionNames == ["Kitchen-2"])
        #expect(result.family.latestVersion.entity(named: "Picture")?.renamingIdentifier == nil, "nothing before it to rename from")
    }

    /// The versions go by name even when `.xccurrentversion` names another one: an older
    /// version chosen again is not the newest. A warning says so.
    @Test func aCurrentVersionThatIsNotLastByNameIsWarnedOf() throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: parent) }
        let bundle = parent.appendingPathComponent("Pantry.xcdatamodeld")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("Pantry.xcdatamodeld"), to: bundle)
        try FileManager.default.copyItem(at: bundle.appendingPathComponent("Pantry.xcdatamodel"), to: bundle.appendingPathComponent("Pantry 10.xcdatamodel"))
        let result = try CoreDataImporter.importBundle(at: bundle)
        #expect(result.family.versionNames == ["Pantry", "Pantry-2", "Pantry-10"])
        #expect(result.notes.contains { $0.element == "version order" && $0.kind == .warning })
    }
}

private extension Attribute {
    /// The attribute without its source location, to compare with one built in a test (a location
    /// never distinguishes values, but an optional one does from none).
    var unlocated: Attribute {
        var copy = self
        copy.location = nil
        return copy
    }
}
