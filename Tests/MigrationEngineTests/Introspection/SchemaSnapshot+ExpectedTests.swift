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

    @Test func missingTable() async throws {
        // CASCADE also drops ingredient's foreign key to it, which is reported on its own table.
        let found = try await drift("Recipes", "v3", after: "DROP TABLE tenant_a.unit_of_measure CASCADE")
        expectDrift(found, [
            SchemaDifference(kind: .missingForeignKey, table: "ingredient", column: "unit_of_measure_id",
                             expected: "(unit_of_measure_id) → unit_of_measure ON DELETE SET NULL"),
            SchemaDifference(kind: .missingTable, table: "unit_of_measure"),
        ], [
            "table ingredient: foreign key (unit_of_measure_id) → unit_of_measure ON DELETE SET NULL is missing",
            "table unit_of_measure is missing",
        ])
    }

    @Test func extraTable() async throws {
        let found = try await drift("Recipes", "v2", after: """
            CREATE TABLE tenant_a.extra_table (id integer PRIMARY KEY);
            CREATE TABLE tenant_a._tm_bookkeeping (id integer);
            CREATE TABLE tenant_a._prisma_migrations (id varchar(36) PRIMARY KEY);
            """)
        expectDrift(found, [SchemaDifference(kind: .extraTable, table: "_prisma_migrations"), SchemaDifference(kind: .extraTable, table: "extra_table")],
                    ["table _prisma_migrations is not in the model", "table extra_table is not in the model"])
    }

    @Test func missingAndExtraColumns() async throws {
        let found = try await drift("Recipes", "v2", after: """
            ALTER TABLE tenant_a.recipe DROP COLUMN prep_minutes;
            ALTER TABLE tenant_a.recipe ADD COLUMN notes text NOT NULL DEFAULT '';
            """)
        expectDrift(found, [
            SchemaDifference(kind: .extraColumn, table: "recipe", column: "notes", actual: "text NOT NULL DEFAULT ''::text"),
            SchemaDifference(kind: .missingColumn, table: "recipe", column: "prep_minutes", expected: "integer"),
        ], [
            "table recipe: column notes is not in the model",
            "table recipe: column prep_minutes is missing",
        ])
    }

    @Test func columnType() async throws {
        let found = try await drift("Recipes", "v2", after: "ALTER TABLE tenant_a.recipe ALTER COLUMN servings TYPE smallint")
        expectDrift(found, [
            SchemaDifference(kind: .columnType, table: "recipe", column: "servings", expected: "integer", actual: "smallint"),
        ], ["table recipe: column servings has type smallint, expected integer"])
    }

    @Test func columnNullability() async throws {
        let found = try await drift("Recipes", "v2", after: """
            ALTER TABLE tenant_a.recipe ALTER COLUMN name DROP NOT NULL;
            ALTER TABLE tenant_a.recipe ALTER COLUMN servings SET NOT NULL;
            """)
        expectDrift(found, [
            SchemaDifference(kind: .columnNullability, table: "recipe", column: "name", expected: "NOT NULL", actual: "nullable"),
            SchemaDifference(kind: .columnNullability, table: "recipe", column: "servings", expected: "nullable", actual: "NOT NULL"),
        ], [
            "table recipe: column name is nullable, expected NOT NULL",
            "table recipe: column servings is NOT NULL, expected nullable",
        ])
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

    @Test func columnIdentity() async throws {
        let found = try await drift("Recipes", "v2", after: "ALTER TABLE tenant_a.recipe ALTER COLUMN id DROP IDENTITY")
        expectDrift(found, [
            SchemaDifference(kind: .columnIdentity, table: "recipe", column: "id", expected: "identity"),
        ], ["table recipe: column id is not an identity column, expected one"])
    }

    @Test func primaryKey() async throws {
        let found = try await drift("Library", "v3", after: """
            ALTER TABLE tenant_a.artist_tracks DROP CONSTRAINT artist_tracks_pkey;
            ALTER TABLE tenant_a.lyrics DROP CONSTRAINT lyrics_pkey, ADD PRIMARY KEY (id, text);
            """)
        expectDrift(found, [
            SchemaDifference(kind: .primaryKey, table: "artist_tracks", column: "artist_id, track_id", expected: "(artist_id, track_id)"),
            SchemaDifference(kind: .primaryKey, table: "lyrics", column: "id", expected: "(id)", actual: "(id, text)"),
        ], [
            "table artist_tracks: primary key (artist_id, track_id) is missing",
            "table lyrics: primary key is (id, text), expected (id)",
        ])
    }

    @Test func foreignKeyMissingAndExtra() async throws {
        let found = try await drift("Recipes", "v2", after: """
            ALTER TABLE tenant_a.recipe_ingredient DROP CONSTRAINT recipe_ingredient_recipe_id_fkey;
            ALTER TABLE tenant_a.recipe ADD CONSTRAINT recipe_servings_fkey
                FOREIGN KEY (servings) REFERENCES tenant_a.recipe_ingredient (id);
            """)
        expectDrift(found, [
            SchemaDifference(kind: .extraForeignKey, table: "recipe", column: "servings",
                             actual: "(servings) → recipe_ingredient ON DELETE NO ACTION"),
            SchemaDifference(kind: .missingForeignKey, table: "recipe_ingredient", column: "recipe_id",
                             expected: "(recipe_id) → recipe ON DELETE CASCADE"),
        ], [
            "table recipe: foreign key (servings) → recipe_ingredient ON DELETE NO ACTION is not in the model",
            "table recipe_ingredient: foreign key (recipe_id) → recipe ON DELETE CASCADE is missing",
        ])
    }

    @Test func foreignKeyDeleteRule() async throws {
        // Re-created under another name: the name is not drift, the rule is.
        let found = try await drift("Recipes", "v2", after: """
            ALTER TABLE tenant_a.recipe_ingredient DROP CONSTRAINT recipe_ingredient_recipe_id_fkey,
                ADD CONSTRAINT to_recipe FOREIGN KEY (recipe_id) REFERENCES tenant_a.recipe (id) ON DELETE SET NULL;
            """)
        expectDrift(found, [
            SchemaDifference(kind: .foreignKeyDeleteRule, table: "recipe_ingredient", column: "recipe_id",
                             expected: "(recipe_id) → recipe ON DELETE CASCADE",
                             actual: "(recipe_id) → recipe ON DELETE SET NULL"),
        ], ["table recipe_ingredient: foreign key (recipe_id) → recipe deletes with SET NULL, expected CASCADE"])
    }

    @Test func foreignKeyToAnotherTable() async throws {
        let found = try await drift("Recipes", "v3", after: """
            ALTER TABLE tenant_a.recipe_ingredient DROP CONSTRAINT recipe_ingredient_ingredient_id_fkey,
                ADD FOREIGN KEY (ingredient_id) REFERENCES tenant_a.unit_of_measure (id) ON DELETE RESTRICT;
            """)
        expectDrift(found, [
            SchemaDifference(kind: .missingForeignKey, table: "recipe_ingredient", column: "ingredient_id",
                             expected: "(ingredient_id) → ingredient ON DELETE RESTRICT"),
            SchemaDifference(kind: .extraForeignKey, table: "recipe_ingredient", column: "ingredient_id",
                             actual: "(ingredient_id) → unit_of_measure ON DELETE RESTRICT"),
        ], [
            "table recipe_ingredient: foreign key (ingredient_id) → ingredient ON DELETE RESTRICT is missing",
            "table recipe_ingredient: foreign key (ingredient_id) → unit_of_measure ON DELETE RESTRICT is not in the model",
        ])
    }

    @Test func indexMissingAndExtra() async throws {
        let found = try await drift("Recipes", "v2", after: """
            DROP INDEX tenant_a.recipe_type_idx;
            CREATE INDEX ON tenant_a.recipe (name);
            CREATE UNIQUE INDEX ON tenant_a.recipe (lower(name), servings) WHERE servings > 0;
            CREATE INDEX ON tenant_a.recipe_ingredient USING hash (name);
            """)
        expectDrift(found, [
            SchemaDifference(kind: .missingIndex, table: "recipe", column: "type", expected: "(type)"),
            SchemaDifference(kind: .extraIndex, table: "recipe", column: "(lower(name)), servings",
                             actual: "UNIQUE ((lower(name)), servings) WHERE (servings > 0)"),
            SchemaDifference(kind: .extraIndex, table: "recipe", column: "name", actual: "(name)"),
            SchemaDifference(kind: .extraIndex, table: "recipe_ingredient", column: "name", actual: "(name) USING hash"),
        ], [
            "table recipe: index on (type) is missing",
            "table recipe: unique index on ((lower(name)), servings) WHERE (servings > 0) is not in the model",
            "table recipe: index on (name) is not in the model",
            "table recipe_ingredient: index on (name) USING hash is not in the model",
        ])
    }

    @Test func indexBecameUnique() async throws {
        let found = try await drift("Recipes", "v2", after: """
            DROP INDEX tenant_a.recipe_type_idx;
            CREATE UNIQUE INDEX recipe_type_idx ON tenant_a.recipe (type);
            """)
        expectDrift(found, [
            SchemaDifference(kind: .missingIndex, table: "recipe", column: "type", expected: "(type)"),
            SchemaDifference(kind: .extraIndex, table: "recipe", column: "type", actual: "UNIQUE (type)"),
        ], [
            "table recipe: index on (type) is missing",
            "table recipe: unique index on (type) is not in the model",
        ])
    }

    @Test func uniqueConstraintMissingAndExtra() async throws {
        let found = try await drift("Recipes", "v3", after: """
            ALTER TABLE tenant_a.ingredient DROP CONSTRAINT ingredient_name_key;
            ALTER TABLE tenant_a.recipe ADD CONSTRAINT whatever UNIQUE (name, type);
            ALTER TABLE tenant_a.unit_of_measure RENAME CONSTRAINT unit_of_measure_name_key TO uom_name;
            """)
        expectDrift(found, [
            SchemaDifference(kind: .missingUniqueConstraint, table: "ingredient", column: "name", expected: "(name)"),
            SchemaDifference(kind: .extraUniqueConstraint, table: "recipe", column: "name, type", actual: "(name, type)"),
        ], [
            "table ingredient: unique constraint on (name) is missing",
            "table recipe: unique constraint on (name, type) is not in the model",
        ])
    }

    @Test func checkMissingAndExtra() async throws {
        let found = try await drift("Library", "v3", after: """
            ALTER TABLE tenant_a.attachment DROP CONSTRAINT attachment_entity_check;
            ALTER TABLE tenant_a.attachment ADD CHECK (width >= 0);
            ALTER TABLE tenant_a.attachment RENAME CONSTRAINT attachment_caption_check TO caption_required;
            """)
        let entityCheck = "CHECK ((entity = ANY (ARRAY['FileAttachment'::text, 'ImageAttachment'::text])))"
        expectDrift(found, [
            SchemaDifference(kind: .missingCheck, table: "attachment", expected: entityCheck),
            SchemaDifference(kind: .extraCheck, table: "attachment", actual: "CHECK ((width >= 0))"),
        ], [
            "table attachment: constraint \(entityCheck) is missing",
            "table attachment: constraint CHECK ((width >= 0)) is not in the model",
        ])
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
