import EntityModel
import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import Testing
import TypedSQL

/// Issue 30 (found by the round-trip property with app changes, seed 1, families 13 and 21): the
/// rows of a table a step drops are archived whole and come back exactly, as text, whatever their
/// type: `-0` of a real or a double, NaN, ±Infinity, the smallest and largest reals, numeric
/// trailing zeros, bytes, JSON documents. And the table's identity does not go back below an id
/// the app used before the way up (its next value comes back, not only the restored rows' last).
@Suite("Archive: a dropped table's rows and identity come back exactly")
struct DroppedTableValuesTests {
    static let v1 = """
        entities:
          Item:
            attributes:
              name: { type: string }
          Measure:
            attributes:
              label: { type: string, optional: true }
              flt: { type: float, optional: true }
              dbl: { type: double, optional: true }
              dec: { type: decimal, optional: true }
              at: { type: date, optional: true }
              bin: { type: binary, optional: true }
              doc: { type: json, optional: true }
        """
    static let v2 = """
        entities:
          Item:
            attributes:
              name: { type: string }
        """
    static let values = [
        "'neg zero', '-0', '-0', 1.10, '2024-02-29 23:59:59.999999+00', '\\x00ff'::bytea, '{\"a\": 1.10}'",
        "'specials', 'NaN', '-Infinity', '-0.000', 'infinity', '\\x'::bytea, 'null'",
        "'extremes', '1.4e-45', '5e-324', 123456789012345678901234567890.123456789, '0044-03-15 12:00:00+00 BC', NULL, '[]'",
        "'large', '3.4028235e38', '0.30000000000000004', NULL, NULL, NULL, NULL",
    ]

    static func rows(_ connection: Connection) throws -> [String] {
        try connection.execute("SELECT concat_ws(' | ', id, label, flt::text, dbl::text, dec::text, at::text, bin::text, doc::text) FROM \(table: "measure") ORDER BY id",
                               schema: "dropped").map { try $0.decode(String.self, at: 0) }
    }

    static func walk(_ body: (Connection, MigrationPlanner) throws -> Void) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo)
            let family = try ModelFamily(name: "Dropped", versions: [ModelVersion(name: "v1", yaml: v1, file: "v1.yaml"), ModelVersion(name: "v2", yaml: v2, file: "v2.yaml")])
            // (All in a transaction that is rolled back.)
            struct Done: Error {}
            do {
                try connection.transaction { connection in
                    for setting in ["extra_float_digits = 3", "TimeZone = 'UTC'", "DateStyle = 'ISO, MDY'", "bytea_output = hex"] {
                        try connection.execute(unsafeSQL: "SET LOCAL " + setting)
                    }
                    try connection.execute("CREATE SCHEMA dropped")
                    for statement in family.versions[0].relationalSchema().createStatements(inSchema: "dropped", quoting: connection) { try connection.execute(unsafeSQL: statement) }
                    try body(connection, MigrationPlanner(family: family, mappings: []))
                    throw Done()
                }
            } catch is Done {}
        }
    }

    @Test func everyValueOfADroppedTableComesBackAsText() async throws {
        try await Self.walk { connection, planner in
            for row in Self.values {
                try connection.execute(unsafeSQL: "INSERT INTO dropped.measure (label, flt, dbl, dec, at, bin, doc) VALUES (\(row))")
            }
            let before = try Self.rows(connection)
            _ = try planner.plan(from: "v1", to: "v2").run(inSchema: "dropped", on: connection, allowDestructive: true, archives: true)
            _ = try planner.plan(from: "v2", to: "v1").run(inSchema: "dropped", on: connection, allowDestructive: true, archives: true)
            let after = try Self.rows(connection)
            #expect(after.count == before.count)
            for (row, was) in zip(after, before) { #expect(row == was) }
        }
    }

    /// After a rollback that made the table again (its identity reset, not yet drawn from), the
    /// app deletes its last row, and the next way up and down must still keep the id.
    @Test func theIdentityDoesNotGoBackAfterARollbackEither() async throws {
        try await Self.walk { connection, planner in
            for row in Self.values {
                try connection.execute(unsafeSQL: "INSERT INTO dropped.measure (label, flt, dbl, dec, at, bin, doc) VALUES (\(row))")
            }
            for _ in 0..<2 {
                _ = try planner.plan(from: "v1", to: "v2").run(inSchema: "dropped", on: connection, allowDestructive: true, archives: true)
                _ = try planner.plan(from: "v2", to: "v1").run(inSchema: "dropped", on: connection, allowDestructive: true, archives: true)
                // The app deletes the last row each time.
                try connection.execute("DELETE FROM dropped.measure WHERE id = (SELECT max(id) FROM dropped.measure)")
            }
            let next = try connection.execute("INSERT INTO dropped.measure (label) VALUES ('new') RETURNING id").first!.decode(Int64.self, at: 0)
            #expect(next == 5, "a new row's id after the rollbacks")
        }
    }

    @Test func theIdentityDoesNotGoBack() async throws {
        try await Self.walk { connection, planner in
            for row in Self.values {
                try connection.execute(unsafeSQL: "INSERT INTO dropped.measure (label, flt, dbl, dec, at, bin, doc) VALUES (\(row))")
            }
            // The app deletes its last row: id 4 was used, and must not be given again.
            try connection.execute("DELETE FROM dropped.measure WHERE id = 4")
            _ = try planner.plan(from: "v1", to: "v2").run(inSchema: "dropped", on: connection, allowDestructive: true, archives: true)
            _ = try planner.plan(from: "v2", to: "v1").run(inSchema: "dropped", on: connection, allowDestructive: true, archives: true)
            let next = try connection.execute("INSERT INTO dropped.measure (label) VALUES ('new') RETURNING id").first!.decode(Int64.self, at: 0)
            #expect(next == 5, "a new row's id after the rollback")
        }
    }
}
