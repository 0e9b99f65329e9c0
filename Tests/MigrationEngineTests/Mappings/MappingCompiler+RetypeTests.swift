import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Notes, on the rows a policy sees, where each one came from.
struct NoteTheMove: MigrationPolicy {
    var transforms: [String] { ["name"] }

    func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
        try context.update("Cat", id: source.id, ["note": "was a dog called \(try source.string("name") ?? "?")"])
    }
}

/// Issue 22, item 6: in-place mappings that change the entity of rows within a hierarchy that
/// exists on both sides (Pets: some dogs become cats).
@Suite("Mappings: retyping in place")
struct MappingCompilerRetypeTests {
    static let rows = """
        INSERT INTO {schema}.animal (id, entity, name, dog_alias, cat_alias) VALUES
            (1, 'Dog', 'Tom', 'Tommy', NULL), (2, 'Dog', 'Rex', 'Rexy', NULL), (3, 'Cat', 'Tom Cat', NULL, 'Kitty'), (4, 'Dog', 'Tomasz', NULL, NULL)
        """

    static func animals(_ connection: Connection, _ schema: String) throws -> [[String?]] {
        try connection.rows("SELECT id::text, entity, name, cat_alias, dog_alias, note FROM \(schema).animal ORDER BY id")
    }

    /// Defect: a retyped row's attributes that the destination entity stores in another column
    /// (Dog.alias in dog_alias, Cat.alias in cat_alias) are copied, as Core Data's default
    /// attribute mapping copies same-name attributes.
    @Test func aRetypedRowKeepsAttributesStoredInOtherColumns() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: fixture("Pets"))
            let schema = try await migrator.createTenant("zoo", version: "v1").schema
            let connection = try Connection(conninfo)
            try connection.execute(unsafeSQL: Self.rows.replacingOccurrences(of: "{schema}", with: schema))
            _ = try await migrator.migrate(tenant: "zoo", to: "v2")
            let animals = try Self.animals(connection, schema)
            #expect(animals.map { Array($0[0...3]) } == [["1", "Cat", "Tom", "Tommy"], ["2", "Dog", "Rex", nil], ["3", "Cat", "Tom Cat", "Kitty"], ["4", "Cat", "Tomasz", nil]],
                    "\(animals)")
            #expect(try await verifyClean(migrator, "zoo"))
            // The way down (inferred) gives each retyped row its entity and columns back from the archive.
            _ = try await migrator.rollback(tenant: "zoo", to: "v1")
            #expect(try Self.animals(connection, schema) == [
                ["1", "Dog", "Tom", nil, "Tommy", nil], ["2", "Dog", "Rex", nil, "Rexy", nil], ["3", "Cat", "Tom Cat", "Kitty", nil, nil], ["4", "Dog", "Tomasz", nil, nil, nil],
            ])
        }
    }

    /// Defect: the policy of a mapping that retypes rows in place within an existing hierarchy
    /// sees the rows the mapping's own SQL already retyped (its source rows), and no others.
    @Test func aPolicyOverARetypeSeesEveryRetypedRow() async throws {
        var policies = PolicyRegistry()
        policies.register("NoteTheMove") { NoteTheMove() }
        let family = try ModelFamily.load(from: fixture("Pets"))
        let mapping = try loadMapping("PetsMappings/v1-to-v2-policy.yaml", family: family, policies: policies)
        let plan = try MigrationPlanner(family: family, mappings: [mapping], hooks: policies).plan(from: "v1", to: "v2")
        try await TestPostgres.withDatabase { connection in
            try connection.execute("CREATE SCHEMA zoo")
            for statement in try #require(family.version(named: "v1")).relationalSchema().createStatements(inSchema: "zoo", quoting: connection) {
                try connection.execute(unsafeSQL: statement)
            }
            try connection.execute(unsafeSQL: Self.rows.replacingOccurrences(of: "{schema}", with: "zoo"))
            _ = try connection.transaction { try plan.run(inSchema: "zoo", on: $0) }
            #expect(try connection.rows("SELECT id::text, entity, note, adopted::text FROM zoo.animal ORDER BY id") == [
                ["1", "Cat", "was a dog called Tom", "true"], ["2", "Dog", nil, nil], ["3", "Cat", nil, nil], ["4", "Cat", "was a dog called Tomasz", "true"],
            ])
        }
    }
}
