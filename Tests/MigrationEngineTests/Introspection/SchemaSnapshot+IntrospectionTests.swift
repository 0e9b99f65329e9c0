import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import Testing

/// Reading a schema from pg_catalog, and rendering a version's expected snapshot.
struct SchemaSnapshotIntrospectionTests {
    static let versions: [(family: String, version: String)] = [
        ("Recipes", "v1"), ("Recipes", "v2"), ("Recipes", "v3"),
        ("Library", "v1"), ("Library", "v2"), ("Library", "v3"),
    ]

    @Test(arguments: versions)
    func freshlyRenderedSchemaEqualsExpected(family: String, version: String) async throws {
        let model = try SnapshotFixtures.model(family, version)
        try await TestPostgres.withDatabase { connection in
            try SnapshotFixtures.render(model, on: connection)
            let live = try SchemaSnapshot.read(schema: SnapshotFixtures.tenant, on: connection)
            let expected = try SchemaSnapshot.expected(for: model, on: connection)
            #expect(live.differences(from: expected) == [])
            #expect(live == expected)
            #expect(live.tables.map(\.name) == model.relationalSchema().tables.map(\.name))
            #expect(try SnapshotFixtures.scratchSchemas(on: connection) == [])
        }
    }

    @Test func readsRecipesV1Exactly() async throws {
        let model = try SnapshotFixtures.model("Recipes", "v1")
        try await TestPostgres.withDatabase { connection in
            try SnapshotFixtures.render(model, on: connection)
            let snapshot = try SchemaSnapshot.read(schema: SnapshotFixtures.tenant, on: connection)
            let id = ColumnSnapshot(name: "id", type: "bigint", isNullable: false, isIdentity: true)
            #expect(snapshot == SchemaSnapshot(tables: [
                TableSnapshot(
                    name: "recipe",
                    columns: [
                        id,
                        ColumnSnapshot(name: "instructions", type: "text", isNullable: true),
                        ColumnSnapshot(name: "name", type: "text", isNullable: false),
                        ColumnSnapshot(name: "servings", type: "smallint", isNullable: true),
                        ColumnSnapshot(name: "type", type: "text", isNullable: false, defaultExpression: "'Other'::text"),
                    ],
                    primaryKey: ["id"],
                    indexes: [IndexSnapshot(name: "recipe_type_idx", columns: ["type"])]
                ),
                TableSnapshot(
                    name: "recipe_ingredient",
                    columns: [
                        id,
                        ColumnSnapshot(name: "name", type: "text", isNullable: false),
                        ColumnSnapshot(name: "quantity", type: "numeric", isNullable: true),
                        ColumnSnapshot(name: "recipe_id", type: "bigint", isNullable: true),
                        ColumnSnapshot(name: "unit_of_measure", type: "text", isNullable: true),
                    ],
                    primaryKey: ["id"],
                    foreignKeys: [ForeignKeySnapshot(
                        columns: ["recipe_id"], referencedTable: "recipe", referencedColumns: ["id"], onDelete: "CASCADE"
                    )],
                    indexes: [IndexSnapshot(name: "recipe_ingredient_recipe_id_idx", columns: ["recipe_id"])]
                ),
            ]))
        }
    }

    @Test func readsLibraryV3ConstraintsAndDefaults() async throws {
        let model = try SnapshotFixtures.model("Library", "v3")
        try await TestPostgres.withDatabase { connection in
            try SnapshotFixtures.render(model, on: connection)
            let snapshot = try SchemaSnapshot.read(schema: SnapshotFixtures.tenant, on: connection)
            let attachment = try #require(snapshot.table(named: "attachment"))
            #expect(attachment.checks == [
                "CHECK (((entity <> 'FileAttachment'::text) OR (file_name IS NOT NULL)))",
                "CHECK (((entity <> 'ImageAttachment'::text) OR (caption IS NOT NULL)))",
                "CHECK (((entity <> 'ImageAttachment'::text) OR (height IS NOT NULL)))",
                "CHECK (((entity <> 'ImageAttachment'::text) OR (image IS NOT NULL)))",
                "CHECK (((entity <> 'ImageAttachment'::text) OR (width IS NOT NULL)))",
                "CHECK ((entity = ANY (ARRAY['FileAttachment'::text, 'ImageAttachment'::text])))",
            ])
            #expect(attachment.column(named: "date_created")?.type == "timestamp with time zone")
            let joinTable = try #require(snapshot.table(named: "artist_tracks"))
            #expect(joinTable.primaryKey == ["artist_id", "track_id"])
            #expect(joinTable.foreignKeys.map(\.referencedTable) == ["artist", "track"])
            #expect(joinTable.indexes.map(\.columns) == [["track_id"]])
            #expect(snapshot.table(named: "lyrics")?.uniqueConstraints == [["track_id"]])
            #expect(snapshot.table(named: "lyrics")?.indexes == [])
            let track = try #require(snapshot.table(named: "track"))
            #expect(track.column(named: "metadata")?.defaultExpression == "'{}'::jsonb")
            #expect(track.column(named: "rating")?.type == "double precision")
            #expect(snapshot.table(named: "note")?.column(named: "date_created")?.defaultExpression
                == "'2024-01-01 00:00:00+00'::timestamp with time zone")
        }
    }

    @Test func expectedSnapshotsOfV1AndV2DifferAsTheModelsDo() async throws {
        let v1 = try SnapshotFixtures.model("Recipes", "v1")
        let v2 = try SnapshotFixtures.model("Recipes", "v2")
        try await TestPostgres.withDatabase { connection in
            let old = try SchemaSnapshot.expected(for: v1, on: connection)
            let new = try SchemaSnapshot.expected(for: v2, on: connection)
            let differences = old.differences(from: new)
            #expect(differences == [
                SchemaDifference(kind: .extraColumn, table: "recipe", column: "instructions", actual: "text"),
                SchemaDifference(kind: .missingColumn, table: "recipe", column: "method", expected: "text"),
                SchemaDifference(kind: .missingColumn, table: "recipe", column: "prep_minutes", expected: "integer"),
                SchemaDifference(kind: .columnType, table: "recipe", column: "servings", expected: "integer", actual: "smallint"),
            ])
            #expect(differences.map(\.description) == [
                "table recipe: column instructions is not in the model",
                "table recipe: column method is missing",
                "table recipe: column prep_minutes is missing",
                "table recipe: column servings has type smallint, expected integer",
            ])
        }
    }

    @Test func expectedLeavesNoScratchSchemaOutsideATransaction() async throws {
        let model = try SnapshotFixtures.model("Library", "v3")
        try await TestPostgres.withDatabase { connection in
            let snapshot = try SchemaSnapshot.expected(for: model, on: connection)
            #expect(snapshot.tables.count == model.relationalSchema().tables.count)
            #expect(try SnapshotFixtures.scratchSchemas(on: connection) == [])
            #expect(!connection.isInTransaction)
        }
    }

    @Test func expectedLeavesNoScratchSchemaInsideATransaction() async throws {
        let model = try SnapshotFixtures.model("Recipes", "v3")
        try await TestPostgres.withDatabase { connection in
            try connection.transaction { connection in
                try SnapshotFixtures.render(model, on: connection)
                let expected = try SchemaSnapshot.expected(for: model, on: connection)
                #expect(try SnapshotFixtures.scratchSchemas(on: connection) == [])
                // The outer transaction's own work survives the rolled-back savepoint.
                let live = try SchemaSnapshot.read(schema: SnapshotFixtures.tenant, on: connection)
                #expect(live.differences(from: expected) == [])
                try connection.savepoint { connection in
                    _ = try SchemaSnapshot.expected(for: model, on: connection)
                }
                #expect(try SnapshotFixtures.scratchSchemas(on: connection) == [])
            }
            #expect(try SnapshotFixtures.scratchSchemas(on: connection) == [])
            #expect(try SchemaSnapshot.read(schema: SnapshotFixtures.tenant, on: connection).tables.count == 4)
        }
    }

    @Test func expectedLeavesNothingWhenRenderingFails() async throws {
        let model = try SnapshotFixtures.model("Recipes", "v3")
        try await TestPostgres.withDatabase { connection in
            // Every CREATE INDEX fails, after the scratch schema and its tables exist.
            try connection.fixtureScript("""
                CREATE FUNCTION public.refuse_index() RETURNS event_trigger LANGUAGE plpgsql
                    AS $$ BEGIN RAISE EXCEPTION 'no indexes today'; END $$;
                CREATE EVENT TRIGGER refuse_index ON ddl_command_end WHEN TAG IN ('CREATE INDEX')
                    EXECUTE FUNCTION public.refuse_index();
                """)
            #expect(throws: PQError.self) { try SchemaSnapshot.expected(for: model, on: connection) }
            #expect(try SnapshotFixtures.scratchSchemas(on: connection) == [])
            try connection.transaction { connection in
                try connection.fixtureScript("CREATE TABLE public.kept (id integer)")
                #expect(throws: PQError.self) { try SchemaSnapshot.expected(for: model, on: connection) }
                #expect(try SnapshotFixtures.scratchSchemas(on: connection) == [])
                try connection.execute("INSERT INTO public.kept VALUES (1)")
            }
            #expect(try connection.execute("SELECT count(*)::int FROM public.kept").first?.decode(Int.self, at: 0) == 1)
        }
    }

    @Test func columnOrderAndConstraintNamesDoNotMatter() async throws {
        let v2 = try SnapshotFixtures.model("Recipes", "v2")
        try await TestPostgres.withDatabase { connection in
            try SnapshotFixtures.render(v2, on: connection)
            // Rebuild recipe with its columns in another order and every name changed.
            try connection.fixtureScript("""
                DROP TABLE tenant_a.recipe CASCADE;
                CREATE TABLE tenant_a.recipe (
                    type text DEFAULT 'Other' NOT NULL,
                    servings integer,
                    prep_minutes integer,
                    name text NOT NULL,
                    method text,
                    id bigint GENERATED BY DEFAULT AS IDENTITY CONSTRAINT my_pk PRIMARY KEY
                );
                CREATE INDEX by_type ON tenant_a.recipe (type);
                ALTER TABLE tenant_a.recipe_ingredient ADD CONSTRAINT belongs_to_recipe
                    FOREIGN KEY (recipe_id) REFERENCES tenant_a.recipe (id) ON DELETE CASCADE;
                ALTER INDEX tenant_a.recipe_ingredient_recipe_id_idx RENAME TO ingredient_recipe;
                ALTER TABLE tenant_a.recipe_ingredient RENAME CONSTRAINT recipe_ingredient_pkey TO ri_pk;
                """)
            let live = try SchemaSnapshot.read(schema: SnapshotFixtures.tenant, on: connection)
            #expect(live.differences(from: try SchemaSnapshot.expected(for: v2, on: connection)) == [])
        }
    }

    @Test func handMigratedSchemaMatchesTheNextVersion() async throws {
        let v1 = try SnapshotFixtures.model("Recipes", "v1")
        let v2 = try SnapshotFixtures.model("Recipes", "v2")
        try await TestPostgres.withDatabase { connection in
            try SnapshotFixtures.render(v1, on: connection)
            try connection.fixtureScript("""
                ALTER TABLE tenant_a.recipe ADD COLUMN prep_minutes integer;
                ALTER TABLE tenant_a.recipe ALTER COLUMN servings TYPE integer;
                ALTER TABLE tenant_a.recipe RENAME COLUMN instructions TO method;
                """)
            let live = try SchemaSnapshot.read(schema: SnapshotFixtures.tenant, on: connection)
            #expect(live.differences(from: try SchemaSnapshot.expected(for: v2, on: connection)) == [])
            #expect(live.differences(from: try SchemaSnapshot.expected(for: v1, on: connection)).count == 4)
        }
    }

    @Test func schemaNameAndSearchPathDoNotLeakIntoTheSnapshot() async throws {
        let model = try SnapshotFixtures.model("Library", "v3")
        try await TestPostgres.withDatabase { connection in
            let schema = #"Tenant "B""#
            let quoted = connection.quoteIdentifier(schema)
            try SnapshotFixtures.render(model, into: schema, on: connection)
            try connection.fixtureScript("""
                CREATE SEQUENCE \(quoted).counter;
                ALTER TABLE \(quoted).tag ADD COLUMN position bigint DEFAULT nextval('\(quoted).counter'),
                    ADD CONSTRAINT position_positive CHECK (position > 0);
                """)
            let outside = try SchemaSnapshot.read(schema: schema, on: connection)
            try connection.fixtureScript("SET search_path TO \(quoted), public")
            let inside = try SchemaSnapshot.read(schema: schema, on: connection)
            #expect(outside == inside)
            let tag = try #require(outside.table(named: "tag"))
            #expect(tag.column(named: "position")?.defaultExpression == "nextval('counter'::regclass)")
            #expect(tag.checks == ["CHECK ((\"position\" > 0))"])
            #expect(outside.differences(from: try SchemaSnapshot.expected(for: model, on: connection)) == [
                SchemaDifference(kind: .extraColumn, table: "tag", column: "position",
                                 actual: "bigint DEFAULT nextval('counter'::regclass)"),
                SchemaDifference(kind: .extraCheck, table: "tag", actual: "CHECK ((\"position\" > 0))"),
            ])
        }
    }

    @Test func reservedTablesAreIgnoredAndMissingSchemasReported() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.fixtureScript("""
                CREATE SCHEMA tenant_a;
                CREATE TABLE tenant_a._tm_migrations (version text);
                CREATE TABLE tenant_a._migrations (version text);
                CREATE TABLE tenant_a.thing (id integer);
                CREATE VIEW tenant_a.thing_view AS SELECT id FROM tenant_a.thing;
                CREATE SCHEMA empty;
                """)
            let snapshot = try SchemaSnapshot.read(schema: "tenant_a", on: connection)
            // Only `_tm_` is the tool's: an application's `_migrations` is read.
            #expect(snapshot.tables == [
                TableSnapshot(name: "_migrations", columns: [ColumnSnapshot(name: "version", type: "text", isNullable: true)]),
                TableSnapshot(name: "thing", columns: [ColumnSnapshot(name: "id", type: "integer", isNullable: true)]),
            ])
            #expect(try SchemaSnapshot.read(schema: "empty", on: connection) == SchemaSnapshot(tables: []))
            #expect(throws: SchemaSnapshotError.schemaNotFound("nowhere")) {
                try SchemaSnapshot.read(schema: "nowhere", on: connection)
            }
        }
    }

    @Test func snapshotsAndDifferencesRoundTripThroughJSON() async throws {
        let model = try SnapshotFixtures.model("Library", "v3")
        try await TestPostgres.withDatabase { connection in
            let snapshot = try SchemaSnapshot.expected(for: model, on: connection)
            let decoded = try JSONDecoder().decode(SchemaSnapshot.self, from: try JSONEncoder().encode(snapshot))
            #expect(decoded == snapshot)
            let difference = SchemaDifference(kind: .columnType, table: "recipe", column: "servings", expected: "integer", actual: "smallint")
            let json = String(decoding: try JSONEncoder().encode(difference), as: UTF8.self)
            #expect(json.contains(#""kind":"columnType""#))
            #expect(try JSONDecoder().decode(SchemaDifference.self, from: Data(json.utf8)) == difference)
        }
    }

    /// Ten linked tables read back exactly as the model renders them. (How fast reading is, a
    /// handful of catalog queries whatever the number of tables, is for benchmarks, not tests.)
    @Test func readingTenLinkedTablesMatchesTheModel() async throws {
        let entities = (1...10).map { index in
            """
              Thing\(index):
                attributes:
                  name: { type: string, unique: true }
                  size: { type: int32, default: 0, indexed: true }
                  note: { type: string, optional: true }
                relationships:
                  next: { destination: Thing\(index % 10 + 1), deleteRule: cascade }
            """
        }
        let model = try ModelVersion(name: "v1", yaml: "entities:\n" + entities.joined(separator: "\n"), file: "v1.yaml")
        try await TestPostgres.withDatabase { connection in
            try SnapshotFixtures.render(model, on: connection)
            let live = try SchemaSnapshot.read(schema: SnapshotFixtures.tenant, on: connection)
            #expect(live.tables.count == 10)
            #expect(live.differences(from: try SchemaSnapshot.expected(for: model, on: connection)).isEmpty)
        }
    }
}
