import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing
import TypedSQL

/// Issue 30, item 3: what the archive keeps does not depend on the server's settings. With the
/// database and the role set to hostile values for everything that formats or parses values, a
/// column of every attribute type, dropped and rolled back, comes back exactly: generated values,
/// NULLs, `-0`, NaN, ±Infinity, extremes, the largest real, numeric trailing zeros.
@Suite("Archive: values come back whatever the server's settings")
struct ArchiveSettingsTests {
    static let columns = ["s", "i16", "i32", "i64", "dec", "dbl", "flt", "b", "at", "u", "bin", "j"]

    /// Literals for each column: special values first, then generated ones (NULL one time in five).
    static func values(count: Int, seed: UInt64) -> [[String]] {
        var random = SeededGenerator(seed: seed)
        let special: [String: [String]] = [
            "s": ["''", "' trailing '", "E'back\\\\slash'", "'Crème'"],
            "i16": ["-32768", "32767", "0"],
            "i32": ["-2147483648", "2147483647", "0"],
            "i64": ["-9223372036854775808", "9223372036854775807", "0"],
            "dec": ["1.10", "-0.000", "'NaN'", "123456789012345678901234567890.123456789"],
            "dbl": ["0.30000000000000004", "'-0'", "'NaN'", "'Infinity'", "'-Infinity'", "1.7976931348623157e308", "5e-324"],
            "flt": ["3.4028235e38", "'-0'", "'NaN'", "'Infinity'", "'-Infinity'", "1.4e-45", "0.1"],
            "b": ["true", "false"],
            "at": ["'2024-02-29 23:59:59.999999+00'", "'infinity'", "'-infinity'", "'1900-01-01 00:00:00+00'", "'0044-03-15 12:00:00+00 BC'"],
            "u": ["'00000000-0000-0000-0000-000000000000'", "'ffffffff-ffff-ffff-ffff-ffffffffffff'"],
            "bin": ["'\\x'::bytea", "'\\x00ff5c27'::bytea"],
            "j": ["'{\"a\": [1.10, null, \"x\"]}'", "'[]'", "'\"\\\\u00e9\"'", "'1e400'"],
        ]
        func generated(_ column: String) -> String {
            if Int.random(in: 0..<5, using: &random) == 0 { return "NULL" }
            switch column {
            case "s": return "'s\(Int.random(in: 0..<1000, using: &random))'"
            case "i16": return String(Int16.random(in: .min ... .max, using: &random))
            case "i32": return String(Int32.random(in: .min ... .max, using: &random))
            case "i64": return String(Int64.random(in: .min ... .max, using: &random))
            case "dec": return "\(Int.random(in: -99999...99999, using: &random)).\(String(repeating: "0", count: Int.random(in: 0...3, using: &random)))1"
            // Any finite bit pattern, each printed with every digit it needs.
            case "dbl": return "'\(Double(bitPattern: random.next() & 0xFFEF_FFFF_FFFF_FFFF))'::float8"
            case "flt": return "'\(Float(bitPattern: UInt32(truncatingIfNeeded: random.next()) & 0xFF7F_FFFF))'::float4"
            case "b": return Bool.random(using: &random) ? "true" : "false"
            case "at": return "pg_catalog.to_timestamp(\(Int64.random(in: -2_000_000_000_000 ... 2_000_000_000_000, using: &random)) / 1000000.0)"
            case "u":
                let hex = String(format: "%016llx%016llx", random.next(), random.next())
                return "'\(hex)'::uuid"
            case "bin": return "'\\x\(String(format: "%016llx", random.next()))'::bytea"
            default: return "'{\"n\": \(Double(Int.random(in: -1000...1000, using: &random)) / 8)}'"
            }
        }
        return (0..<count).map { row in
            columns.map { column in
                let pool = special[column]!
                return row < pool.count ? pool[row] : generated(column)
            }
        }
    }

    /// Every column of every value as text, read with settings of our own.
    static func snapshot(_ connection: Connection, _ schema: String) throws -> [[String?]] {
        try connection.rows("SELECT id::text, name, " + columns.map { "\($0)::text" }.joined(separator: ", ") + " FROM \(schema).value ORDER BY id")
    }

    static func readingSettings(_ connection: Connection) throws {
        try connection.fixtureScript("SET extra_float_digits = 3; SET TimeZone = 'UTC'; SET DateStyle = 'ISO, MDY'; SET IntervalStyle = postgres; SET bytea_output = hex")
    }

    @Test(arguments: [UInt64(30), 31])
    func everyValueComesBackUnderHostileSettings(seed: UInt64) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (_, connection, schema) = try await fixtureTenant("EveryType", conninfo, insert: "SELECT 1")
            try Self.readingSettings(connection)
            for (index, row) in Self.values(count: 40, seed: seed).enumerated() {
                try connection.execute(unsafeSQL: "INSERT INTO \(schema).value (id, name, \(Self.columns.joined(separator: ", "))) VALUES (\(index + 1), 'v\(index + 1)', \(row.joined(separator: ", ")))")
            }
            let before = try Self.snapshot(connection, schema)
            let database = try connection.scalar("SELECT current_database()::text", as: String.self)
            try connection.fixtureScript("""
                ALTER DATABASE \(connection.quoteIdentifier(database)) SET extra_float_digits = 0;
                ALTER DATABASE \(connection.quoteIdentifier(database)) SET TimeZone = 'Asia/Tokyo';
                ALTER DATABASE \(connection.quoteIdentifier(database)) SET DateStyle = 'SQL, DMY';
                ALTER ROLE CURRENT_USER IN DATABASE \(connection.quoteIdentifier(database)) SET IntervalStyle = 'sql_standard';
                ALTER ROLE CURRENT_USER IN DATABASE \(connection.quoteIdentifier(database)) SET bytea_output = 'escape';
                """)
            // New sessions (the first migrator's are open already) get the hostile settings.
            let hostile = try TenantMigrator(connectionString: conninfo, familyDirectory: fixture("EveryType"), policies: PolicyRegistry())
            #expect(try await hostile.migrate(tenant: "acme", to: "v2").outcome == .migrated)
            _ = try await hostile.rollback(tenant: "acme", to: "v1")
            let after = try Self.snapshot(connection, schema)
            for (column, index) in zip(["id", "name"] + Self.columns, 0...) {
                #expect(after.map { $0[index] } == before.map { $0[index] }, "column \(column)")
            }
        }
    }
}
