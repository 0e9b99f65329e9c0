import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 32 (left open by issue 34): a mapping expression that casts to an enum type of the model. The
/// mappings run with `search_path = pg_catalog, pg_temp`, so no role can put a type of the same
/// name before the tenant's: a bare `CAST(x AS state)` finds no type (42704), and a same-named
/// type an app role makes in `public` is never read. The enum is named through `{schema}` or the
/// `{enum:state}` placeholder, which names the model's type in the tenant's schema.
@Suite("Mappings: a cast to a model enum in a mapping expression")
struct MappingCompilerPlaceholdersTests {
    static let v1 = """
        enums:
          state: [new, paid]
        entities:
          Order:
            attributes:
              label: { type: string }
        """
    /// v1 and an optional `status` of the enum, which the mapping writes.
    static let v2 = v1 + "\n      status: { type: \"enum(state)\", optional: true }"

    /// A family folder (`Casts`, v1 → v2) whose mapping writes `status` as `expression`.
    static func family(writingStatus expression: String) throws -> URL {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("Casts-\(UUID().uuidString)")
        let directory = parent.appendingPathComponent("Casts")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("Mappings"), withIntermediateDirectories: true)
        try "family: Casts\nversions: [v1, v2]\n".write(to: directory.appendingPathComponent("family.yaml"), atomically: true, encoding: .utf8)
        try v1.write(to: directory.appendingPathComponent("v1.yaml"), atomically: true, encoding: .utf8)
        try v2.write(to: directory.appendingPathComponent("v2.yaml"), atomically: true, encoding: .utf8)
        try itemToItemMapping(from: "v1", to: "v2", attributes: [("status", expression)])
            .replacingOccurrences(of: "Item", with: "Order")
            .write(to: directory.appendingPathComponent("Mappings/v1-to-v2.yaml"), atomically: true, encoding: .utf8)
        return directory
    }

    /// Migrates a tenant with the labels `paid` and `new` up with `expression`, on a new test
    /// database; its statuses after.
    static func statuses(writtenBy expression: String, before: (Connection, String) throws -> Void = { _, _ in }) async throws -> [String?] {
        let directory = try family(writingStatus: expression)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        return try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: directory, policies: PolicyRegistry())
            let schema = try await migrator.createTenant("acme", version: "v1").schema
            let connection = try Connection(conninfo)
            try connection.execute(unsafeSQL: "INSERT INTO \(connection.quoteIdentifier(schema)).\"order\" (label) VALUES ('paid'), ('new')")
            try before(connection, schema)
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            return try connection.rows("SELECT status::text FROM \(connection.quoteIdentifier(schema)).\"order\" ORDER BY id").map { $0[0] }
        }
    }

    @Test func theEnumPlaceholderNamesTheModelsType() async throws {
        #expect(try await Self.statuses(writtenBy: "CAST(source.label AS {enum:state})") == ["paid", "new"])
    }

    /// Braces in an expression's quoted text are that text's own: an array literal, a JSON
    /// literal, the text `{schema}` in a string, a quoted identifier's and a dollar-quoted string's
    /// braces stay as written; only `{enum:state}` in the SQL is a placeholder. Failed before with
    /// "unknown placeholder {paid,x}".
    @Test func bracesInQuotedTextAreTheTextsOwn() async throws {
        let expression = "CASE WHEN source.label = ANY ('{paid,x}'::text[]) AND '{schema}' = '{' || 'schema}' "
            + "AND pg_catalog.jsonb_typeof('{\"a\": 1}'::jsonb) = 'object' AND $${x}$$ = '{x}' AND '{''}' = '{' || '''}' "
            + "AND (SELECT s.\"{col}\" FROM (SELECT 1 AS \"{col}\") AS s) = 1 /* {not one} */ "
            + "THEN CAST(source.label AS {enum:state}) END"
        #expect(try await Self.statuses(writtenBy: expression) == ["paid", nil])
    }

    @Test func theSchemaPlaceholderQualifiesItToo() async throws {
        #expect(try await Self.statuses(writtenBy: "source.label::{schema}.state") == ["paid", "new"])
    }

    /// A bare name is not looked up in the tenant's schema, nor in `public`, where an app role may
    /// have made a type of the name: the step fails (42704) and the tenant stays at v1.
    @Test func aBareNameFindsNoTypeNotEvenOnePlantedInPublic() async throws {
        do {
            _ = try await Self.statuses(writtenBy: "source.label::state") { connection, _ in
                try connection.execute(unsafeSQL: "CREATE TYPE public.state AS ENUM ('paid', 'new', 'planted')")
            }
            Issue.record("a bare enum name must not resolve")
        } catch {
            #expect("\(error)".contains("42704"), "\(error)")
        }
    }

    /// `{enum:name}` names an enum of the step's versions; another name is refused with the mapping.
    @Test func anUnknownEnumIsRefused() async throws {
        _ = await #expect(throws: (any Error).self) { try await Self.statuses(writtenBy: "CAST(source.label AS {enum:nope})") }
    }
}
