import EntityModel
import Foundation
import PostgresTestSupport
import Testing

/// Loading a family directory: the manifest, the version files, and the files around them.
struct ModelFamilyLoadingTests {
    @Test func recipesLoads() throws {
        let family = try ModelFamily.load(from: PackagePaths.migrationFamily("Recipes"))
        #expect(family.name == "Recipes")
        #expect(family.versionNames == ["v1", "v2", "v3"])
        #expect(family.latestVersion.name == "v3")
        #expect(family.index(ofVersion: "v2") == 1)
        #expect(family.version(named: "v3")?.entities.map(\.name) == ["Ingredient", "Recipe", "RecipeIngredient", "UnitOfMeasure"])
        #expect(family.directory?.lastPathComponent == "Recipes")
    }

    @Test func libraryLoads() throws {
        let family = try ModelFamily.load(from: PackagePaths.libraryFamily)
        #expect(family.versionNames == ["v1", "v2", "v3"])
        let v3 = family.latestVersion
        #expect(v3.rootEntities.map(\.name) == ["Artist", "Attachment", "Lyrics", "Note", "Tag", "Track"])
        #expect(v3.subentities(of: "Attachment") == ["FileAttachment", "ImageAttachment"])
        #expect(v3.rootEntity(of: "ImageAttachment") == "Attachment")
        #expect(v3.ancestors(of: "ImageAttachment") == ["Attachment"])
        #expect(v3.entity(named: "ImageAttachment")?.tableName == "attachment")
        #expect(v3.allAttributes(of: "ImageAttachment").map { "\($0.declaredBy).\($0.attribute.name)" }
            == ["Attachment.dateCreated", "ImageAttachment.caption", "ImageAttachment.height", "ImageAttachment.image", "ImageAttachment.width"])
        #expect(v3.allRelationships(of: "FileAttachment").map(\.relationship.name) == ["note"])
        #expect(v3.inverse(ofRelationship: "artists", in: "Track")?.name == "tracks")
        #expect(v3.inverse(ofRelationship: "tags", in: "Note") == nil)
    }

    @Test func listedVersionWhoseFileIsMissing() {
        #expect(Fixtures.diagnostics(ofFamily: Fixtures.brokenFamily("MissingVersion")).map(\.description) == [
            "MissingVersion/family.yaml:4: version v2 is listed, but MissingVersion/v2.yaml does not exist.",
        ])
    }

    @Test func unlistedFileIsAnErrorButSubdirectoriesAndOtherFilesAreIgnored() {
        let found = Fixtures.diagnostics(ofFamily: Fixtures.brokenFamily("UnlistedFile"))
        #expect(found.map(\.description) == [
            "UnlistedFile/v2.yaml:1: file not listed: v2.yaml is not among the versions in family.yaml; list it or remove it.",
        ])
    }

    @Test func manifestMistakes() {
        #expect(Fixtures.diagnostics(ofFamily: Fixtures.brokenFamily("BadManifest")).map(\.description) == [
            "BadManifest/family.yaml:1: the family is named Recipes, but its directory is BadManifest; use the same name.",
            "BadManifest/family.yaml:2: version v1 is listed twice.",
            "BadManifest/family.yaml:2: \"bad name\" is not a valid version name: it starts with a letter or digit and has only letters, digits, \"_\", \".\" and \"-\".",
            "BadManifest/family.yaml:3: unknown key \"latest\" in family.yaml; the keys are: family, versions.",
        ])
    }

    @Test func mistakesInSeveralFilesAreReportedTogetherSortedByFileThenLine() {
        let error = #expect(throws: ModelLoadError.self) {
            try ModelFamily.load(from: Fixtures.brokenFamily("SeveralFiles"))
        }
        #expect(error?.description == """
            SeveralFiles/v1.yaml:4: attribute Recipe.name has unknown type "txt"; the types are: \(VersionFileDecoderTests.types).
            SeveralFiles/v2.yaml:5: the default many of attribute Recipe.servings is not an int16 value.
            SeveralFiles/v2.yaml:7: relationship Recipe.author points to entity Author, which does not exist.
            """)
    }

    @Test func missingDirectory() {
        let url = Fixtures.directory.appendingPathComponent("NoSuchFamily")
        #expect(Fixtures.diagnostics(ofFamily: url).map(\.description) == [
            "NoSuchFamily/family.yaml:0: the family directory \(url.path) does not exist.",
        ])
    }

    @Test func programmaticFamilyRejectsDuplicateVersions() throws {
        let v1 = try version("entities: {}\n")
        #expect(throws: ModelLoadError.self) { try ModelFamily(name: "F", versions: [v1, v1]) }
        #expect(throws: ModelLoadError.self) { try ModelFamily(name: "F", versions: []) }
        #expect(try ModelFamily(name: "F", versions: [v1]).latestVersion == v1)
    }
}
