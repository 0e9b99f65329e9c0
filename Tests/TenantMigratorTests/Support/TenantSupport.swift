import EntityModel
import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import Testing

/// The repository's root, found from this file.
let repositoryRoot = PackagePaths.root

/// `Migrations/Recipes`.
let recipesDirectory = repositoryRoot.appendingPathComponent("Migrations/Recipes")

/// The example family under Migrations/.
func recipesFamily() throws -> ModelFamily { try ModelFamily.load(from: recipesDirectory) }

/// `Tests/TenantMigratorTests/Fixtures/<name>`.
func fixture(_ name: String) -> URL {
    repositoryRoot.appendingPathComponent("Tests/TenantMigratorTests/Fixtures/\(name)")
}

/// A test family under Tests/TenantMigratorTests/Fixtures/.
func fixtureFamily(_ name: String) throws -> ModelFamily { try ModelFamily.load(from: fixture(name)) }

func tenant(_ name: String) throws -> TenantName { try TenantName(name) }

extension Connection {
    /// Creates `schema` with the tables of `version`, as an unregistered schema to adopt.
    func createSchema(_ schema: String, at version: ModelVersion) throws {
        try script("CREATE SCHEMA \(quoteIdentifier(schema))")
        for statement in version.relationalSchema().createStatements(inSchema: schema, quoting: self) {
            try script(statement)
        }
    }

    /// The first column of the first row.
    func scalar<T: PQDecodable>(_ sql: String, _ parameters: [(any PQEncodable)?] = [], as type: T.Type = T.self) throws -> T {
        guard let row = try execute(sql, parameters).first else { throw TestFailure("no row for \(sql)") }
        return try row.decode(T.self, at: 0)
    }

    /// The first column of every row.
    func column<T: PQDecodable>(_ sql: String, _ parameters: [(any PQEncodable)?] = [], as type: T.Type = T.self) throws -> [T] {
        try execute(sql, parameters).map { try $0.decode(T.self, at: 0) }
    }

    /// Whether schema `name` exists.
    func schemaExists(_ name: String) throws -> Bool {
        try scalar("SELECT count(*)::int FROM pg_namespace WHERE nspname = $1", [name], as: Int.self) == 1
    }

    /// Every schema that is not PostgreSQL's own.
    func userSchemas() throws -> [String] {
        try column("SELECT nspname::text FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' ORDER BY 1")
    }

    /// md5 of the contents of every table of `schema`, by table name (rows ordered by id).
    func tableChecksums(schema: String) throws -> [String: String] {
        let tables: [String] = try column("SELECT tablename::text FROM pg_tables WHERE schemaname = $1 ORDER BY 1", [schema])
        var sums: [String: String] = [:]
        for table in tables {
            sums[table] = try scalar(
                "SELECT coalesce(md5(string_agg(t::text, ',' ORDER BY t.id)), 'empty') FROM \(quoteIdentifier(schema)).\(quoteIdentifier(table)) t",
                as: String.self
            )
        }
        return sums
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `pg_dump --schema-only` of one schema, from the server the conninfo names.
func schemaDump(conninfo: String, schema: String) throws -> String {
    let candidates = ["/usr/lib/postgresql/15/bin/pg_dump", "/usr/lib/postgresql/16/bin/pg_dump", "/usr/bin/pg_dump"]
    guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw TestFailure("pg_dump not found in \(candidates)")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = ["--schema-only", "--no-owner", "--schema=\(schema)", "--dbname=\(conninfo)"]
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw TestFailure("pg_dump failed: \(String(decoding: errorData, as: UTF8.self))")
    }
    // pg_dump 15.14+ brackets its output with `\restrict <random key>`; the key differs per run.
    return String(decoding: data, as: UTF8.self)
        .split(separator: "\n", omittingEmptySubsequences: false)
        .filter { !$0.hasPrefix("\\restrict ") && !$0.hasPrefix("\\unrestrict ") }
        .joined(separator: "\n")
}

/// Milliseconds since `start`.
func milliseconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
}
