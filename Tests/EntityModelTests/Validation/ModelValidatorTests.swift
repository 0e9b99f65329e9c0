import EntityModel
import Testing
import TypedSQL

/// Mistakes of meaning in a version, each reported with its line, and all of them at once.
struct ModelValidatorTests {
    static let reservedColumn = "uses a reserved name: TenantMigrator owns the columns \"id\" and \"entity\"."
    static let reservedPrefix = "uses a reserved name: names starting with \"_tm_\" belong to TenantMigrator."
    static let notAnIdentifier = "is not a valid name: a name starts with a letter and has only letters, digits and \"_\"."

    /// Each broken version and what it must report.
    static let brokenVersions: [BrokenFixture] = [
        BrokenFixture("MissingDestination", [
            (7, "relationship Recipe.ingredients points to entity Ingredient, which does not exist."),
        ]),
        BrokenFixture("MissingInverse", [
            (5, "relationship Recipe.ingredients names inverse recipe, but entity RecipeIngredient has no relationship recipe."),
        ]),
        BrokenFixture("InverseNotPointingBack", [
            (5, "relationship Recipe.ingredients names inverse recipe, but RecipeIngredient.recipe names steps as its inverse, not ingredients."),
            (6, "relationship Recipe.steps names inverse recipe, but Step.recipe points to Tag, not back to Recipe."),
            (7, "relationship Recipe.tags names inverse recipes, but Tag.recipes is an attribute, not a relationship."),
            (10, "relationship RecipeIngredient.recipe names inverse steps, but Recipe.steps points to Step, not back to RecipeIngredient."),
        ]),
        BrokenFixture("InheritanceCycle", [
            (3, "entity Attachment is part of an inheritance cycle: Attachment → FileAttachment → ImageAttachment → Attachment."),
        ]),
        BrokenFixture("MissingParent", [
            (6, "entity ImageAttachment has parent Attachmnt, which does not exist."),
        ]),
        BrokenFixture("InheritanceOptions", [
            (5, "entity ImageAttachment has a parent, so its rows live in its root entity's table; table: is allowed only on a root entity."),
            (8, "entity Shape is abstract and has no concrete sub-entity, so it can hold no rows."),
        ]),
        BrokenFixture("DuplicateProperty", [
            (7, "relationship Recipe.ingredients has the same name as attribute Recipe.ingredients."),
        ]),
        BrokenFixture("DuplicateInherited", [
            (9, "attribute ImageAttachment.dateCreated repeats the name of attribute Attachment.dateCreated, which ImageAttachment inherits."),
        ]),
        BrokenFixture("SnakeCaseCollision", [
            (6, "attribute Recipe.recipe_name and attribute Recipe.recipeName both map to the SQL name \"recipe_name\"; rename one of them."),
            (8, "entity Recipe_item and entity RecipeItem both map to the SQL name \"recipe_item\"; rename one of them."),
        ]),
        BrokenFixture("ColumnCollision", [
            (5, "attribute Recipe.title maps to column \"title\" of table \"recipe\", which attribute Recipe.name also uses; rename one of them or set column:."),
            (9, "relationship Recipe.author maps to column \"author_id\" of table \"recipe\", which attribute Recipe.authorId also uses; rename one of them or set column:."),
            (15, "attribute ImageAttachment.caption maps to column \"caption\" of table \"attachment\", which attribute FileAttachment.caption also uses; rename one of them or set column:."),
        ]),
        BrokenFixture("TableCollision", [
            (6, "entity Dish maps to table \"recipe\", which entity Recipe also uses; rename one of them or set table:."),
        ]),
        BrokenFixture("ReservedName", [
            (5, "attribute Recipe.id \(Self.reservedColumn)"),
            (6, "attribute Recipe.entity \(Self.reservedColumn)"),
            (7, "attribute Recipe._tm_secret \(Self.reservedPrefix)"),
            (8, "attribute Recipe.ID \(Self.reservedColumn)"),
            (9, "column \"_tm_code\" of attribute Recipe.code \(Self.reservedPrefix)"),
            (10, "entity name \"_tm_Hidden\" \(Self.reservedPrefix)"),
        ]),
        BrokenFixture("NotIdentifier", [
            (5, "attribute Recipe.2ndName \(Self.notAnIdentifier)"),
            (6, "attribute Recipe.first name \(Self.notAnIdentifier)"),
            (7, "column \"nom-de-plume\" of attribute Recipe.nom is not a valid name: a name starts with a letter or \"_\" and has only letters, digits and \"_\"."),
            (8, "entity name \"Recipe-Item\" \(Self.notAnIdentifier)"),
        ]),
        BrokenFixture("NameTooLong", [
            (5, "column name \"the_number_of_minutes_it_takes_to_prepare_this_recipe_before_it_goes_into_the_oven\" of attribute "
                + "Recipe.theNumberOfMinutesItTakesToPrepareThisRecipeBeforeItGoesIntoTheOven is 82 bytes long; PostgreSQL allows at most 63."),
            (6, "table name \"an_entity_whose_name_is_far_too_long_to_be_a_table_name_in_postgre_sql_even_in_snake_case\" of entity "
                + "AnEntityWhoseNameIsFarTooLongToBeATableNameInPostgreSQLEvenInSnakeCase is 89 bytes long; PostgreSQL allows at most 63."),
        ]),
        BrokenFixture("RelationshipOptions", [
            (5, "relationship Recipe.author is to-one; minCount and maxCount apply only to a to-many relationship."),
            (6, "relationship Recipe.ingredients has minCount 3 greater than maxCount 2."),
            (7, "relationship Recipe.tags has unknown deleteRule \"remove\"; the rules are: nullify, cascade, deny, noAction."),
            (8, "relationship Recipe.steps is to-many, so it has no foreign-key column; column: applies only to a to-one."),
            (9, "relationship Recipe.cover does not hold the foreign key of its one-to-one pair (Cover.recipe does, because it sorts first); put column: there."),
        ]),
        BrokenFixture("SeveralMistakes", [
            (5, "attribute Recipe.name has unknown type \"strin\"; the types are: \(VersionFileDecoderTests.types)."),
            (6, "the default 70000 of attribute Recipe.servings is out of range for int16 (-32768...32767)."),
            (7, "attribute Recipe.id uses a reserved name: TenantMigrator owns the columns \"id\" and \"entity\"."),
            (9, "relationship Recipe.ingredients points to entity Ingredient, which does not exist."),
            (10, "relationship Recipe.author names inverse recipes, but entity Person has no relationship recipes."),
            (11, "entity Person has parent Human, which does not exist."),
            (14, "unknown key \"shade\" in attribute Person.name; the keys are: type, optional, default, defaultExpression, unique, indexed, renamingIdentifier, column, allowsNarrowing, check, comment."),
        ]),
    ]

    @Test(arguments: brokenVersions)
    func mistakeOfMeaningIsReportedWithItsLine(_ broken: BrokenFixture) throws {
        try expectDiagnostics(ofBroken: broken.name, broken.expected)
    }

    @Test func inverseThatNamesNoInverse() {
        #expect(diagnostics("""
            entities:
              A:
                relationships:
                  bs: { destination: B, toMany: true, inverse: a }
              B:
                relationships:
                  a: { destination: A }
            """) == ["v1.yaml:4: relationship A.bs names inverse a, but B.a names no inverse; both sides must name each other."])
    }

    @Test func errorDescriptionHasOneLinePerMistakeSortedByLine() throws {
        let error = #expect(throws: ModelLoadError.self) {
            try ModelVersion(name: "v1", yaml: """
                entities:
                  B:
                    parent: Nothing
                  A:
                    attributes:
                      x: { type: nope }
                """, file: "v1.yaml")
        }
        #expect(error?.description == """
            v1.yaml:2: entity B has parent Nothing, which does not exist.
            v1.yaml:6: attribute A.x has unknown type "nope"; the types are: \(VersionFileDecoderTests.types).
            """)
    }

    @Test func manyToManyWithoutInverseIsAllowed() throws {
        let model = try version("""
            entities:
              Note:
                relationships:
                  tags: { destination: Tag, toMany: true }
              Tag: {}
            """)
        #expect(model.relationalSchema().joinTable(forEntity: "Note", relationship: "tags")?.name == "note_tags")
    }

    @Test func programmaticModelsAreValidatedToo() {
        let error = #expect(throws: ModelLoadError.self) {
            try ModelVersion(name: "v1", entities: [
                Entity(name: "Recipe", attributes: [Attribute(name: "name", type: .string)]),
                Entity(name: "Recipe"),
            ])
        }
        #expect(error?.diagnostics.map(\.description) == ["v1:0: entity Recipe is declared twice."])
    }
}
