import EntityModel
import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import Testing
import TypedSQL

/// Issue 32: an account's row predicate stays typed until it runs. Its text in plans and JSON
/// writes the tenant's schema as `{schema}`; read back from that text, a literal or a name that
/// holds `{schema}` itself would turn into the schema. An enum value may be any text of 1 to 63
/// bytes, `{schema}` too: the rows holding a value the step removes are archived by the value,
/// and the way down gives each back.
@Suite("Accounting: a row predicate whose literal holds {schema} selects its rows")
struct StepAccountRowSetTests {
    static let v1 = """
        enums:
          state: [new, "{schema}", "a{schema}b"]
        entities:
          Order:
            attributes:
              label: { type: string }
              status: { type: "enum(state)", optional: true }
        """
    static let v2 = """
        enums:
          state: [new]
        entities:
          Order:
            attributes:
              label: { type: string }
              status: { type: "enum(state)", optional: true }
        """

    static func rows(_ connection: Connection) throws -> [[String?]] {
        try connection.execute("SELECT label, status::text FROM \(table: "order") ORDER BY id", schema: "placeholders")
            .map { [try $0.decode(String?.self, at: 0), try $0.decode(String?.self, at: 1)] }
    }

    /// In a transaction that is rolled back: the schema at v1 with three rows, and a planner.
    static func walk(_ body: (Connection, MigrationPlanner) throws -> Void) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo)
            let family = try ModelFamily(name: "Placeholders", versions: [ModelVersion(name: "v1", yaml: v1, file: "v1.yaml"),
                                                                          ModelVersion(name: "v2", yaml: v2, file: "v2.yaml")])
            struct Done: Error {}
            do {
                try connection.transaction { connection in
                    try connection.execute("CREATE SCHEMA placeholders")
                    for statement in family.versions[0].relationalSchema().createStatements(inSchema: "placeholders", quoting: connection) {
                        try connection.execute(unsafeSQL: statement)
                    }
                    try connection.execute(unsafeSQL: "INSERT INTO placeholders.\"order\" (label, status) VALUES ('plain', 'new'), ('braces', '{schema}'), ('inside', 'a{schema}b')")
                    try body(connection, MigrationPlanner(family: family, mappings: []))
                    throw Done()
                }
            } catch is Done {}
        }
    }

    @Test func removedEnumValuesHoldingThePlaceholderComeBack() async throws {
        try await Self.walk { connection, planner in
            let before = try Self.rows(connection)
            let up = try planner.plan(from: "v1", to: "v2")
            // The plan's text still writes the schema as {schema} and the values as they are.
            let predicate = up.steps.flatMap(\.account.entries).compactMap(\.item.rows).map(\.predicate)
            #expect(predicate == [#"source."status"::text IN ('{schema}', 'a{schema}b')"#])
            _ = try up.run(inSchema: "placeholders", on: connection, allowDestructive: true, archives: true)
            #expect(try Self.rows(connection) == [["plain", "new"], ["braces", nil], ["inside", nil]])
            _ = try planner.plan(from: "v2", to: "v1").run(inSchema: "placeholders", on: connection, allowDestructive: true, archives: true)
            #expect(try Self.rows(connection) == before)
        }
    }
}
