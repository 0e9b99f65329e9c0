import EntityModel
import LibPQ
import MigrationEngine
import PostgresTestSupport
import Testing

/// Every kind of drift, made by a deliberate ALTER on a freshly rendered schema, is reported exactly.
struct SchemaSnapshotExpectedTests {
    /// Renders `version` of `family` into `tenant_a`, runs `sql`, and compares the result with the
    /// version's expected snapshot.
    func drift(_ family: String, _ version: String, after sql: String) async throws -> [SchemaDifference] {
        let model = try SnapshotFixtures.model(family, version)
        return try await TestPostgres.withDatabase { connection in
            try SnapshotFixtures.render(model, on: connection)
            try connection.fixtureScript(sql)
            let live = try SchemaSnapshot.read(schema: SnapshotFixtures.tenant, on: connection)
            return live.differences(from: try SchemaSnapshot.expected(for: model, on: connection))
        }
    }

    /// Expects exactly `expected`, and exactly these descriptions.
    func expectDrift(
        _ found: [SchemaDifference], _ expected: [SchemaDifference], _ descriptions: [String],
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        #expect(found == expected, sourceLocation: sourceLocation)
        #expect(found.map(\.description) == descriptions, sourceLocation: sourceLocation)
    }

    /// A deliberate ALTER (`sql`) on `version` of `family`, and exactly what it must report.
    struct Alteration: Sendable, CustomTestStringConvertible {
        let name: String
        let family: String
        let version: String
        let sql: String
        let expected: [SchemaDifference]
        let descriptions: [String]

        var testDescription: String { name }
    }

    /// Library v3's check that an attachment row is one of its entities.
    static let attachmentEntityCheck = "CHECK ((entity = ANY (ARRAY['FileAttachment'::text, 'ImageAttachment'::text])))"

    static let alterations = [
        // CASCADE also drops ingredient's foreign key to it, which is reported on its own table.
        Alteration(name: "missing table", family: "Recipes", version: "v3", sql: "DROP TABLE tenant_a.unit_of_measure CASCADE", expected: [
            SchemaDifference(kind: .missingForeignKey, table: "ingredient", column: "unit_of_measure_id",
                             expected: "(unit_of_measure_id) → unit_of_measure ON DELETE SET NULL"),
            SchemaDifference(kind: .missingTable, table: "unit_of_measure"),
        ], descriptions: [
            "table ingredient: foreign key (unit_of_measure_id) → unit_of_measure ON DELETE SET NULL is missing",
            "table unit_of_measure is missing",
        ]),
        Alteration(name: "extra table", family: "Recipes", version: "v2", sql: """
            CREATE TABLE tenant_a.extra_table (id integer PRIMARY KEY);
            CREATE TABLE tenant_a._tm_bookkeeping (id integer);
            CREATE TABLE tenant_a._prisma_migrations (id varchar(36) PRIMARY KEY);
            """, expected: [
            SchemaDifference(kind: .extraTable, table: "_prisma_migrations"), SchemaDifference(kind: .extraTable, table: "extra_table"),
        ], descriptions: ["table _prisma_migrations is not in the model", "table extra_table is not in the model"]),
        Alteration(name: "missing and extra columns", family: "Recipes", version: "v2", sql: """
            ALTER TABLE tenant_a.recipe DROP COLUMN prep_minutes;
            ALTER TABLE tenant_a.recipe ADD COLUMN notes text NOT NULL DEFAULT '';
            """, expected: [
            SchemaDifference(kind: .extraColumn, table: "recipe", column: "notes", actual: "text NOT NULL DEFAULT ''::text"),
            SchemaDifference(kind: .missingColumn, table: "recipe", column: "prep_minutes", expected: "integer"),
        ], descriptions: [
            "table recipe: column notes is not in the model",
            "table recipe: column prep_minutes is missing",
        ]),
        Alteration(name: "column type", family: "Recipes", version: "v2", sql: "ALTER TABLE tenant_a.recipe ALTER COLUMN servings TYPE smallint", expected: [
            SchemaDifference(kind: .columnType, table: "recipe", column: "servings", expected: "integer", actual: "smallint"),
        ], descriptions: ["table recipe: column servings has type smallint, expected integer"]),
        Alteration(name: "column nullability", family: "Recipes", version: "v2", sql: """
            ALTER TABLE tenant_a.recipe ALTER COLUMN name DROP NOT NULL;
            ALTER TABLE tenant_a.recipe ALTER COLUMN servings SET NOT NULL;
            """, expected: [
            SchemaDifference(kind: .columnNullability, table: "recipe", column: "name", expected: "NOT NULL", actual: "nullable"),
            SchemaDifference(kind: .columnNullability, table: "recipe", column: "servings", expected: "nullable", actual: "NOT NULL"),
        ], descriptions: [
            "table recipe: column name is nullable, expected NOT NULL",
            "table recipe: column servings is NOT NULL, expected nullable",
        ]),
        Alteration(name: "column identity", family: "Recipes", version: "v2", sql: "ALTER TABLE tenant_a.recipe ALTER COLUMN id DROP IDENTITY", expected: [
            SchemaDifference(kind: .columnIdentity, table: "recipe", column: "id", expected: "identity"),
        ], descriptions: ["table recipe: column id is not an identity column, expected one"]),
        Alteration(name: "primary key", family: "Library", version: "v3", sql: """
            ALTER TABLE tenant_a.artist_tracks DROP CONSTRAINT artist_tracks_pkey;
            ALTER TABLE tenant_a.lyrics DROP CONSTRAINT lyrics_pkey, ADD PRIMARY KEY (id, text);
            """, expected: [
            SchemaDifference(kind: .primaryKey, table: "artist_tracks", column: "artist_id, track_id", expected: "(artist_id, track_id)"),
            SchemaDifference(kind: .primaryKey, table: "lyrics", column: "id", expected: "(id)", actual: "(id, text)"),
        ], descriptions: [
            "table artist_tracks: primary key (artist_id, track_id) is missing",
            "table lyrics: primary key is (id, text), expected (id)",
        ]),
        Alteration(name: "foreign key missing and extra", family: "Recipes", version: "v2", sql: """
            ALTER TABLE tenant_a.recipe_ingredient DROP CONSTRAINT recipe_ingredient_recipe_id_fkey;
            ALTER TABLE tenant_a.recipe ADD CONSTRAINT recipe_servings_fkey
                FOREIGN KEY (servings) REFERENCES tenant_a.recipe_ingredient (id);
            """, expected: [
            SchemaDifference(kind: .extraForeignKey, table: "recipe", column: "servings",
                             actual: "(servings) → recipe_ingredient ON DELETE NO ACTION"),
            SchemaDifference(kind: .missingForeignKey, table: "recipe_ingredient", column: "recipe_id",
                             expected: "(recipe_id) → recipe ON DELETE CASCADE"),
        ], descriptions: [
            "table recipe: foreign key (servings) → recipe_ingredient ON DELETE NO ACTION is not in the model",
            "table recipe_ingredient: foreign key (recipe_id) → recipe ON DELETE CASCADE is missing",
        ]),
        // Re-created under another name: the name is not drift, the rule is.
        Alteration(name: "foreign key delete rule", family: "Recipes", version: "v2", sql: """
            ALTER TABLE tenant_a.recipe_ingredient DROP CONSTRAINT recipe_ingredient_recipe_id_fkey,
                ADD CONSTRAINT to_recipe FOREIGN KEY (recipe_id) REFERENCES tenant_a.recipe (id) ON DELETE SET NULL;
            """, expected: [
            SchemaDifference(kind: .foreignKeyDeleteRule, table: "recipe_ingredient", column: "recipe_id",
                             expected: "(recipe_id) → recipe ON DELETE CASCADE",
                             actual: "(recipe_id) → recipe ON DELETE SET NULL"),
        ], descriptions: ["table recipe_ingredient: foreign key (recipe_id) → recipe deletes with SET NULL, expected CASCADE"]),
        Alteration(name: "foreign key to another table", family: "Recipes", version: "v3", sql: """
            ALTER TABLE tenant_a.recipe_ingredient DROP CONSTRAINT recipe_ingredient_ingredient_id_fkey,
                ADD FOREIGN KEY (ingredient_id) REFERENCES tenant_a.unit_of_measure (id) ON DELETE RESTRICT;
            """, expected: [
            SchemaDifference(kind: .missingForeignKey, table: "recipe_ingredient", column: "ingredient_id",
                             expected: "(ingredient_id) → ingredient ON DELETE RESTRICT"),
            SchemaDifference(kind: .extraForeignKey, table: "recipe_ingredient", column: "ingredient_id",
                             actual: "(ingredient_id) → unit_of_measure ON DELETE RESTRICT"),
        ], descriptions: [
            "table recipe_ingredient: foreign key (ingredient_id) → ingredient ON DELETE RESTRICT is missing",
            "table recipe_ingredient: foreign key (ingredient_id) → unit_of_measure ON DELETE RESTRICT is not in the model",
        ]),
        Alteration(name: "index missing and extra", family: "Recipes", version: "v2", sql: """
            DROP INDEX tenant_a.recipe_type_idx;
            CREATE INDEX ON tenant_a.recipe (name);
            CREATE UNIQUE INDEX ON tenant_a.recipe (lower(name), servings) WHERE servings > 0;
            CREATE INDEX ON tenant_a.recipe_ingredient USING hash (name);
            """, expected: [
            SchemaDifference(kind: .missingIndex, table: "recipe", column: "type", expected: "(type)"),
            SchemaDifference(kind: .extraIndex, table: "recipe", column: "(lower(name)), servings",
                             actual: "UNIQUE ((lower(name)), servings) WHERE (servings > 0)"),
            SchemaDifference(kind: .extraIndex, table: "recipe", column: "name", actual: "(name)"),
            SchemaDifference(kind: .extraIndex, table: "recipe_ingredient", column: "name", actual: "(name) USING hash"),
        ], descriptions: [
            "table recipe: index on (type) is missing",
            "table recipe: unique index on ((lower(name)), servings) WHERE (servings > 0) is not in the model",
            "table recipe: index on (name) is not in the model",
            "table recipe_ingredient: index on (name) USING hash is not in the model",
        ]),
        Alteration(name: "index became unique", family: "Recipes", version: "v2", sql: """
            DROP INDEX tenant_a.recipe_type_idx;
            CREATE UNIQUE INDEX recipe_type_idx ON tenant_a.recipe (type);
            """, expected: [
            SchemaDifference(kind: .missingIndex, table: "recipe", column: "type", expected: "(type)"),
            SchemaDifference(kind: .extraIndex, table: "recipe", column: "type", actual: "UNIQUE (type)"),
        ], descriptions: [
            "table recipe: index on (type) is missing",
            "table recipe: unique index on (type) is not in the model",
        ]),
        Alteration(name: "unique constraint missing and extra", family: "Recipes", version: "v3", sql: """
            ALTER TABLE tenant_a.ingredient DROP CONSTRAINT ingredient_name_key;
            ALTER TABLE tenant_a.recipe ADD CONSTRAINT whatever UNIQUE (name, type);
            ALTER TABLE tenant_a.unit_of_measure RENAME CONSTRAINT unit_of_measure_name_key TO uom_name;
            """, expected: [
            SchemaDifference(kind: .missingUniqueConstraint, table: "ingredient", column: "name", expected: "(name)"),
            SchemaDifference(kind: .extraUniqueConstraint, table: "recipe", column: "name, type", actual: "(name, type)"),
        ], descriptions: [
            "table ingredient: unique constraint on (name) is missing",
            "table recipe: unique constraint on (name, type) is not in the model",
        ]),
        Alteration(name: "check missing and extra", family: "Library", version: "v3", sql: """
            ALTER TABLE tenant_a.attachment DROP CONSTRAINT attachment_entity_check;
            ALTER TABLE tenant_a.attachment ADD CHECK (width >= 0);
            ALTER TABLE tenant_a.attachment RENAME CONSTRAINT attachment_caption_check TO caption_required;
            """, expected: [
            SchemaDifference(kind: .missingCheck, table: "attachment", expected: Self.attachmentEntityCheck),
            SchemaDifference(kind: .extraCheck, table: "attachment", actual: "CHECK ((width >= 0))"),
        ], descriptions: [
            "table attachment: constraint \(Self.attachmentEntityCheck) is missing",
            "table attachment: constraint CHECK ((width >= 0)) is not in the model",
        ]),
    ]

    @Test(arguments: alterations)
    func driftIsReportedExactly(_ alteration: Alteration) async throws {
        let found = try await drift(alteration.family, alteration.version, after: alteration.sql)
        expectDrift(found, alteration.expected, alteration.descriptions)
    }

    @Test func columnDefault() async throws {
        let found = try await drift("Recipes", "v2", after: """
            ALTER TABLE tenant_a.recipe ALTER COLUMN type DROP DEFAULT;
            ALTER TABLE tenant_a.recipe ALTER COLUMN servings SET DEFAULT 4;
            ALTER TABLE tenant_a.recipe_ingredient ALTER COLUMN name SET DEFAULT 'salt';
            """)
        expectDrift(found, [
            SchemaDifference(kind: .columnDefault, table: "recipe", column: "servings", actual: "4"),
            SchemaDifference(kind: .columnDefault, table: "recipe", column: "type", expected: "'Other'::text"),
            SchemaDifference(kind: .columnDefault, table: "recipe_ingredient", column: "name", actual: "'salt'::text"),
        ], [
            "table recipe: column servings has default 4, expected no default",
            "table recipe: column type has no default, expected 'Other'::text",
            "table recipe_ingredient: column name has default 'salt'::text, expected no default",
        ])
        let changed = try await drift("Recipes", "v2", after: "ALTER TABLE tenant_a.recipe ALTER COLUMN type SET DEFAULT 'Dessert'")
        expectDrift(changed, [
            SchemaDifference(kind: .columnDefault, table: "recipe", column: "type", expected: "'Other'::text", actual: "'Dessert'::text"),
        ], ["table recipe: column type has default 'Dessert'::text, expected 'Other'::text"])
    }

    @Test func severalKindsComeInAStableOrder() async throws {
        let sql = """
            ALTER TABLE tenant_a.recipe_ingredient ALTER COLUMN quantity TYPE real, DROP CONSTRAINT recipe_ingredient_recipe_id_fkey;
            ALTER TABLE tenant_a.recipe DROP COLUMN method, ALTER COLUMN type DROP DEFAULT;
            CREATE TABLE tenant_a.aardvark ();
            """
        let first = try await drift("Recipes", "v2", after: sql)
        let second = try await drift("Recipes", "v2", after: sql)
        #expect(first == second)
        #expect(first.map(\.description) == [
            "table aardvark is not in the model",
            "table recipe: column method is missing",
            "table recipe: column type has no default, expected 'Other'::text",
            "table recipe_ingredient: column quantity has type real, expected numeric",
            "table recipe_ingredient: foreign key (recipe_id) → recipe ON DELETE CASCADE is missing",
        ])
    }
}
