import EntityModel
import Foundation
import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// `tenant-migrate check --round-trip`: synthetic data of every version, there and back again.
@Suite("check --round-trip")
struct RoundTripCheckTests {
    private static let mappingFixtures = PackagePaths.root.appendingPathComponent("Tests/MigrationEngineTests/Fixtures").path

    /// Runs the real executable against a fresh test database.
    private func check(_ conninfo: String, _ arguments: [String]) async throws -> TenantMigrateExecutable.Output {
        try await TenantMigrateExecutable.run(["check", "--round-trip", "--database-url", conninfo] + arguments)
    }

    /// Checks `family` of the mapping fixtures with `--json`, expects it to exit 0, and returns its report.
    private func report(_ conninfo: String, family: String, rows: Int,
                        sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> RoundTripReport {
        let output = try await check(conninfo, ["--migrations", Self.mappingFixtures, "--family", family, "--rows", String(rows), "--json"])
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)", sourceLocation: sourceLocation)
        return try JSONDecoder().decode(RoundTripReport.self, from: Data(output.stdout.utf8))
    }

    @Test func recipesComesBackWhole() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let output = try await check(conninfo, ["--migrations", PackagePaths.root.appendingPathComponent("Migrations").path, "--seed", "1", "--rows", "30"])
            #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
            #expect(output.stdout.contains("v1 → v2 → v1: ok"))
            #expect(output.stdout.contains("v1 → v3 → v1: ok"))
            #expect(output.stdout.contains("every round trip gave every value back"))
        }
    }

    @Test func everyKindOfDataComesBackThroughAnInferredStep() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let output = try await check(conninfo, ["--migrations", Self.mappingFixtures, "--family", "EveryKind", "--rows", "20"])
            #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        }
    }

    @Test func anUndeclaredLossExitsOneAndNamesTheAttribute() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let output = try await check(conninfo, ["--migrations", Self.mappingFixtures, "--family", "LossyNames", "--rows", "10"])
            #expect(output.status == 1, "\(output.stdout)\n\(output.stderr)")
            // The way down lower-cases each note in place, and nothing declares that. (The way up
            // lower-cases each name into a new column and drops it: the archive gives names back.)
            #expect(output.stdout.contains("v1 → v2 → v1: 6 values did not come back"), "\(output.stdout)")
            #expect(output.stdout.contains("Item (table item) row 2: Item.note (column note) was \"Crème brûlée\", came back as \"crème brûlée\""), "\(output.stdout)")
            #expect(!output.stdout.contains("Item.name (column name)"), "\(output.stdout)")
            #expect(output.stderr.contains("v1 → v2 → v1"))
        }
    }

    /// Issue 22: every pair i < j along every path shape, and a way down that crosses a fused
    /// step (DropSteps: v1 → v3 is one fused inferred step) gives everything back.
    @Test func everyPathShapeThroughAFusedStepGivesEverythingBack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let report = try await report(conninfo, family: "DropSteps", rows: 12)
            #expect(report.passed)
            #expect(report.trips.map(\.path) == [
                ["v1", "v2", "v1"],
                ["v1", "v3", "v1"], ["v1", "v3", "v2", "v1"], ["v1", "v2", "v3", "v1"], ["v1", "v2", "v3", "v2", "v1"],
                ["v2", "v3", "v2"],
            ])
            #expect(report.trips.allSatisfy { $0.rows > 0 && $0.excused == 0 })
        }
    }

    @Test func thePathShapesOfAFamily() {
        #expect(RoundTripCheck.shapes(["a", "b"]) == [["a", "b", "a"]])
        #expect(RoundTripCheck.shapes(["a", "b", "c", "d"]).count == 3 + 3 * 4)
        #expect(RoundTripCheck.shapes(["a", "b", "c", "d"]).contains(["a", "b", "c", "d", "c", "b", "a"]))
        #expect(RoundTripCheck.shapes(["a", "b", "c", "d"]).contains(["b", "d", "c", "b"]))
    }

    /// The archive keeps what `loses:` names, and the way down restores it: the trip passes.
    @Test func aDeclaredLossPasses() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let report = try await report(conninfo, family: "DeclaredLoss", rows: 10)
            #expect(report.passed)
            #expect(report.trips.map(\.path) == [["v1", "v2", "v1"]])
        }
    }

    /// A declared loss excuses its table and column (or the whole rows), nothing else; one without a
    /// table excuses nothing.
    @Test func whatADeclaredLossExcuses() {
        let difference = RoundTripDifference(table: "item", entity: "Item", column: "name", attribute: "Item.name", row: "1", before: "\"A\"", after: "\"a\"")
        #expect(DestructiveChange(kind: .custom, table: "item", column: "name", detail: "").excuses(difference))
        #expect(DestructiveChange(kind: .custom, table: "item", detail: "").excuses(difference))
        #expect(!DestructiveChange(kind: .custom, table: "item", column: "note", detail: "").excuses(difference))
        #expect(!DestructiveChange(kind: .custom, table: "other", column: "name", detail: "").excuses(difference))
        #expect(!DestructiveChange(kind: .custom, table: "", detail: "a sentence").excuses(difference))
    }

    /// Changed values, missing rows and new rows are each reported, with entity, attribute and row.
    @Test func theSnapshotFindsEveryKindOfDifference() async throws {
        let family = try ModelFamily.load(from: URL(fileURLWithPath: Self.mappingFixtures).appendingPathComponent("EveryKind"))
        let version = try #require(family.version(named: "v1"))
        try await TestPostgres.withDatabase { connection in
            try connection.execute("CREATE SCHEMA snap")
            for statement in version.relationalSchema().createStatements(inSchema: "snap", quoting: connection) { try connection.execute(unsafeSQL: statement) }
            try RoundTripData(version: version, seed: 3, rowsPerEntity: 6).insert(inSchema: "snap", on: connection)
            try connection.execute("BEGIN")
            let snapshot = RoundTripSnapshot(version: version, schema: "snap")
            try snapshot.take(on: connection)
            #expect(try snapshot.differences(on: connection) == [])
            try connection.execute("UPDATE snap.animal SET name = 'Rex' WHERE id = 2")
            try connection.execute("DELETE FROM snap.tag WHERE id = 3")
            try connection.execute("INSERT INTO snap.tag (id, title) VALUES (99, 'new')")
            let differences = try snapshot.differences(on: connection)
            try connection.execute("ROLLBACK")
            let changed = try #require(differences.first { $0.table == "animal" })
            #expect(changed.entity == "Dog" && changed.attribute == "Animal.name" && changed.column == "name" && changed.row == "2")
            #expect(changed.after == "\"Rex\"" && changed.before != changed.after)
            #expect(differences.contains { $0.table == "tag" && $0.row == "3" && $0.column == nil && $0.after == nil && $0.before != nil })
            #expect(differences.contains { $0.table == "tag" && $0.row == "99" && $0.before == nil })
            // The links of the deleted tag went with it (ON DELETE CASCADE), and are reported too.
            #expect(differences.allSatisfy { ["animal", "tag"].contains($0.table) || $0.table.contains("tag") })
        }
    }

    @Test func aSeedGivesTheSameDataTwiceAndAnotherSeedOtherData() async throws {
        let family = try ModelFamily.load(from: URL(fileURLWithPath: Self.mappingFixtures).appendingPathComponent("EveryKind"))
        let version = try #require(family.version(named: "v1"))
        try await TestPostgres.withDatabase { connection in
            func generate(_ schema: String, seed: Int) throws -> [String: String] {
                try connection.execute(unsafeSQL: "CREATE SCHEMA \(connection.quoteIdentifier(schema))")
                for statement in version.relationalSchema().createStatements(inSchema: schema, quoting: connection) { try connection.execute(unsafeSQL: statement) }
                try RoundTripData(version: version, seed: seed, rowsPerEntity: 25).insert(inSchema: schema, on: connection)
                return try connection.tableChecksums(schema: schema, rowsOrderedBy: .text)
            }
            let first = try generate("seed_a", seed: 7)
            let second = try generate("seed_b", seed: 7)
            let other = try generate("seed_c", seed: 8)
            #expect(first == second)
            #expect(first != other)
            #expect(!first.values.contains("empty"), "every table has rows: \(first)")
            // Non-ASCII text, empty strings, NULLs and extremes are there.
            #expect(try connection.scalar("SELECT count(*) FROM seed_a.thing WHERE label = '' OR label LIKE '%東京%'", as: Int64.self) > 0)
            #expect(try connection.scalar("SELECT count(*) FROM seed_a.thing WHERE note IS NULL", as: Int64.self) > 0)
            #expect(try connection.scalar("SELECT min(serial)::text FROM seed_a.thing", as: String.self) == "-9223372036854775808")
            #expect(try connection.scalar("SELECT count(DISTINCT entity) FROM seed_a.animal", as: Int64.self) == 2)
            #expect(try connection.scalar("SELECT count(*) FROM seed_a.person p JOIN seed_a.animal a ON a.id = p.pet_id WHERE a.entity <> 'Dog'", as: Int64.self) == 0)
            // Many-to-many: links to cats only, and some of them.
            let links = try #require(version.relationalSchema().tables.first { table in
                if case .joinTable = table.origin { return table.foreignKeys.contains { $0.referencedTable == "animal" } } else { return false }
            })
            let toAnimal = try #require(links.foreignKeys.first { $0.referencedTable == "animal" }?.columns.first)
            let linkTable = "seed_a.\(connection.quoteIdentifier(links.name))"
            #expect(try connection.scalar("SELECT count(*) FROM \(linkTable)", as: Int64.self) > 0)
            #expect(try connection.scalar(
                "SELECT count(*) FROM \(linkTable) AS l JOIN seed_a.animal AS a ON a.id = l.\(connection.quoteIdentifier(toAnimal)) WHERE a.entity <> 'Cat'",
                as: Int64.self) == 0)
        }
    }

    @Test func nothingRemainsInTheDatabase() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let before = try await TestPostgres.dump(conninfo)
            let output = try await check(conninfo, ["--migrations", PackagePaths.root.appendingPathComponent("Migrations").path, "--rows", "5"])
            #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
            let connection = try Connection(conninfo)
            #expect(try connection.scalar("SELECT count(*) FROM pg_namespace WHERE nspname LIKE '\\_tm\\_round\\_trip%'", as: Int64.self) == 0)
            #expect(TestPostgres.dumpChanges(before, try await TestPostgres.dump(conninfo)) == [])
        }
    }
}
