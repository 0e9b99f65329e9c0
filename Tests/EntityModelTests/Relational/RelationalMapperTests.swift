import EntityModel
import Foundation
import PostgresTestSupport
import Testing

/// The relational shape of the example families.
struct RelationalMapperTests {
    static func schema(_ family: String, _ version: String) throws -> RelationalSchema {
        let url = PackagePaths.modelFamily(family)
        return try #require(try ModelFamily.load(from: url).version(named: version)).relationalSchema()
    }

    /// `name type [NOT NULL]` per column, for compact comparisons.
    static func columns(_ table: Table?) -> [String] {
        (table?.columns ?? []).map { "\($0.name) \($0.type.rawValue)\($0.isNullable ? "" : " NOT NULL")" }
    }

    @Test func recipesV1() throws {
        let schema = try Self.schema("Recipes", "v1")
        #expect(schema.tables.map(\.name) == ["recipe", "recipe_ingredient"])
        let recipe = try #require(schema.table(forEntity: "Recipe"))
        #expect(Self.columns(recipe) == ["id bigint NOT NULL", "instructions text", "name text NOT NULL", "servings smallint", "type text NOT NULL"])
        #expect(recipe.column(named: "id")?.isIdentity == true)
        #expect(recipe.column(named: "id")?.origin == .primaryKey)
        #expect(recipe.column(named: "type")?.defaultValue == .string("Other"))
        #expect(recipe.column(named: "type")?.origin == .attribute(entity: "Recipe", attribute: "type"))
        #expect(recipe.primaryKey == PrimaryKey(name: "recipe_pkey", columns: ["id"]))
        #expect(recipe.indexes == [Index(name: "recipe_type_idx", columns: ["type"])])
        #expect(recipe.foreignKeys.isEmpty, "the to-many side stores nothing")

        let ingredient = try #require(schema.table(forEntity: "RecipeIngredient"))
        #expect(Self.columns(ingredient) == ["id bigint NOT NULL", "name text NOT NULL", "quantity numeric", "unit_of_measure text", "recipe_id bigint"])
        #expect(ingredient.column(named: "recipe_id")?.origin == .relationship(entity: "RecipeIngredient", relationship: "recipe"))
        #expect(ingredient.foreignKeys == [ForeignKey(
            name: "recipe_ingredient_recipe_id_fkey", columns: ["recipe_id"], referencedTable: "recipe",
            referencedColumns: ["id"], onDelete: .cascade  // Recipe.ingredients cascades
        )])
        #expect(ingredient.indexes.map(\.name) == ["recipe_ingredient_recipe_id_idx"])
    }

    @Test func recipesV2() throws {
        let recipe = try #require(try Self.schema("Recipes", "v2").table(forEntity: "Recipe"))
        #expect(Self.columns(recipe) == [
            "id bigint NOT NULL", "method text", "name text NOT NULL", "prep_minutes integer", "servings integer", "type text NOT NULL",
        ])
    }

    @Test func recipesV3() throws {
        let schema = try Self.schema("Recipes", "v3")
        #expect(schema.tables.map(\.name) == ["ingredient", "recipe", "recipe_ingredient", "unit_of_measure"])
        let recipeIngredient = try #require(schema.table(named: "recipe_ingredient"))
        #expect(Self.columns(recipeIngredient) == ["id bigint NOT NULL", "quantity numeric", "ingredient_id bigint NOT NULL", "recipe_id bigint"])
        #expect(recipeIngredient.foreignKeys.map { "\($0.name) → \($0.referencedTable) \($0.onDelete.sql)" } == [
            "recipe_ingredient_ingredient_id_fkey → ingredient RESTRICT",  // Ingredient.recipeIngredients denies
            "recipe_ingredient_recipe_id_fkey → recipe CASCADE",
        ])
        let ingredient = try #require(schema.table(named: "ingredient"))
        #expect(Self.columns(ingredient) == ["id bigint NOT NULL", "name text NOT NULL", "unit_of_measure_id bigint"])
        #expect(ingredient.uniqueConstraints == [UniqueConstraint(name: "ingredient_name_key", columns: ["name"])])
        #expect(ingredient.foreignKeys.first?.onDelete == .setNull)
        let unit = try #require(schema.table(named: "unit_of_measure"))
        #expect(unit.origin == .entity("UnitOfMeasure"))
        #expect(unit.uniqueConstraints.map(\.name) == ["unit_of_measure_name_key"])
    }

    @Test func libraryV1() throws {
        let schema = try Self.schema("Library", "v1")
        let note = try #require(schema.table(named: "note"))
        #expect(Self.columns(note) == [
            "id bigint NOT NULL", "body text", "date_created timestamptz NOT NULL", "note_uuid uuid NOT NULL", "image bytea", "title text NOT NULL",
        ])
        #expect(note.column(named: "note_uuid")?.origin == .attribute(entity: "Note", attribute: "identifier"))
        #expect(note.uniqueConstraints.map(\.name) == ["note_note_uuid_key"])
        #expect(note.column(named: "date_created")?.defaultValue == .date("2024-01-01T00:00:00Z"))
    }

    @Test func libraryV2ManyToManyBecomesAJoinTable() throws {
        let schema = try Self.schema("Library", "v2")
        #expect(schema.tables.map(\.name) == ["artist", "artist_tracks", "attachment", "note", "track"])
        // The owner is the side whose (entity, relationship) sorts first: (Artist, tracks) < (Track, artists).
        let join = try #require(schema.joinTable(forEntity: "Artist", relationship: "tracks"))
        #expect(join.name == "artist_tracks")
        #expect(schema.joinTable(forEntity: "Track", relationship: "artists") == nil)
        #expect(Self.columns(join) == ["artist_id bigint NOT NULL", "track_id bigint NOT NULL"])
        #expect(join.columns.map(\.origin) == [
            .joinSource(entity: "Artist", relationship: "tracks"), .joinDestination(entity: "Artist", relationship: "tracks"),
        ])
        #expect(join.primaryKey == PrimaryKey(name: "artist_tracks_pkey", columns: ["artist_id", "track_id"]))
        #expect(join.foreignKeys.map { "\($0.columns) → \($0.referencedTable) \($0.onDelete.sql)" } == [
            "[\"artist_id\"] → artist CASCADE", "[\"track_id\"] → track CASCADE",
        ])
        #expect(join.indexes == [Index(name: "artist_tracks_track_id_idx", columns: ["track_id"])])
        #expect(schema.table(named: "attachment")?.column(named: "entity") == nil, "no hierarchy, no discriminator")
    }

    @Test func libraryV3SingleTableInheritance() throws {
        let schema = try Self.schema("Library", "v3")
        #expect(schema.tables.map(\.name) == ["artist", "artist_tracks", "attachment", "lyrics", "note", "note_tags", "tag", "track"])
        let attachment = try #require(schema.table(forEntity: "Attachment"))
        #expect(schema.table(forEntity: "ImageAttachment") == nil, "sub-entities live in their root's table")
        #expect(Self.columns(attachment) == [
            "id bigint NOT NULL", "entity text NOT NULL", "date_created timestamptz NOT NULL", "note_id bigint NOT NULL",
            "byte_count bigint", "file_name text", "caption text", "height integer", "image bytea", "width integer",
        ])
        let discriminator = try #require(attachment.column(named: "entity"))
        #expect(discriminator.origin == .discriminator)
        #expect(discriminator.defaultValue == nil, "the root is abstract")
        #expect(attachment.checkConstraints.map(\.name) == [
            "attachment_caption_check", "attachment_entity_check", "attachment_file_name_check",
            "attachment_height_check", "attachment_image_check", "attachment_width_check",
        ])
        #expect(attachment.checkConstraints.first { $0.name == "attachment_entity_check" }?.condition
            == .isOneOf(column: "entity", values: ["FileAttachment", "ImageAttachment"]))
        #expect(attachment.checkConstraints.first { $0.name == "attachment_image_check" }?.condition
            == .requiredForEntities(column: "image", discriminator: "entity", entities: ["ImageAttachment"]))
        #expect(attachment.column(named: "image")?.origin == .attribute(entity: "ImageAttachment", attribute: "image"))
        #expect(attachment.foreignKeys.map(\.name) == ["attachment_note_id_fkey"])
    }

    @Test func libraryV3ToManyWithoutInverseAndOneToOne() throws {
        let schema = try Self.schema("Library", "v3")
        let tags = try #require(schema.joinTable(forEntity: "Note", relationship: "tags"))
        #expect(tags.name == "note_tags")
        #expect(Self.columns(tags) == ["note_id bigint NOT NULL", "tag_id bigint NOT NULL"])
        // One-to-one: (Lyrics, track) sorts before (Track, lyrics), so lyrics holds the key, unique.
        let lyrics = try #require(schema.table(named: "lyrics"))
        #expect(Self.columns(lyrics) == ["id bigint NOT NULL", "text text NOT NULL", "track_id bigint"])
        #expect(lyrics.uniqueConstraints == [UniqueConstraint(name: "lyrics_track_id_key", columns: ["track_id"])])
        #expect(lyrics.indexes.isEmpty, "the unique constraint already indexes the key")
        #expect(lyrics.foreignKeys.first?.onDelete == .cascade, "Track.lyrics cascades")
        #expect(schema.table(named: "track")?.column(named: "lyrics_id") == nil)
    }

    @Test func concreteRootGetsADiscriminatorDefaultAndSelfReferencesWork() throws {
        let schema = try version("""
            entities:
              Person:
                relationships:
                  friends: { destination: Person, toMany: true }
                  spouse: { destination: Person, inverse: spouse }
              Employee:
                parent: Person
                attributes:
                  badge: { type: string }
                relationships:
                  manager: { destination: Employee, optional: false }
              Contractor:
                parent: Employee
            """).relationalSchema()
        let person = try #require(schema.table(named: "person"))
        #expect(person.column(named: "entity")?.defaultValue == .string("Person"))
        #expect(person.checkConstraints.map(\.condition) == [
            .requiredForEntities(column: "badge", discriminator: "entity", entities: ["Contractor", "Employee"]),
            .isOneOf(column: "entity", values: ["Contractor", "Employee", "Person"]),
            .requiredForEntities(column: "manager_id", discriminator: "entity", entities: ["Contractor", "Employee"]),
        ])
        #expect(person.foreignKeys.map { "\($0.name) \($0.onDelete.sql)" } == [
            "person_manager_id_fkey NO ACTION", "person_spouse_id_fkey SET NULL",
        ])
        #expect(person.uniqueConstraints.map(\.name) == ["person_spouse_id_key"])
        let friends = try #require(schema.joinTable(forEntity: "Person", relationship: "friends"))
        #expect(friends.columns.map(\.name) == ["person_id", "friends_id"])
    }

    @Test func longDerivedNamesAreShortened() throws {
        let schema = try version("""
            entities:
              AVeryLongEntityNameForTestingPurposesOnly:
                relationships:
                  anotherRatherLongRelationshipNameToOverflow: { destination: Target, toMany: true }
              Target: {}
            """).relationalSchema()
        let join = try #require(schema.joinTable(forEntity: "AVeryLongEntityNameForTestingPurposesOnly", relationship: "anotherRatherLongRelationshipNameToOverflow"))
        #expect(join.name.utf8.count == 63)
        for name in [join.primaryKey.name] + join.foreignKeys.map(\.name) + join.indexes.map(\.name) {
            #expect(name.utf8.count <= 63)
        }
    }

    @Test func schemaIsCodable() throws {
        let schema = try Self.schema("Library", "v3")
        let data = try JSONEncoder().encode(schema)
        #expect(try JSONDecoder().decode(RelationalSchema.self, from: data) == schema)
    }
}
