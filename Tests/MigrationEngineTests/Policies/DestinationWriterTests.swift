import EntityModel
import Foundation
import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import Testing

/// A policy's updates reach the table: batches whose ids lie close together as soon as they are
/// sent, batches spread over the table when the stage flushes, and the last value sent wins.
@Suite struct DestinationWriterTests {
    static let family = try! ModelFamily.load(from: PackagePaths.migrationFamily("Recipes"))

    /// A schema `w` at `version`, its `recipe` table holding `rows` recipes (ids 1…rows, servings 1).
    static func withRecipes(_ rows: Int, of version: ModelVersion, _ body: (Connection) throws -> Void) async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.fixtureScript("CREATE SCHEMA w")
            try connection.fixtureScript(version.relationalSchema().createStatements(inSchema: "w", quoting: connection).joined(separator: ";\n"))
            try connection.execute(unsafeSQL: "INSERT INTO w.recipe (id, name, servings) SELECT g, 'Recipe ' || g, 1 FROM generate_series(1, \(rows)) g")
            try body(connection)
        }
    }

    @Test(arguments: [7, 8] as [UInt64])
    func updatesLandByBatchOrAtTheFlush(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let v3 = try #require(Self.family.version(named: "v3"))
        let rows = 600
        try await Self.withRecipes(rows, of: v3) { connection in
            try connection.transaction { connection in
                let writer = try DestinationWriter(.update, entity: "Recipe", keys: ["servings"], version: v3, schema: v3.relationalSchema(),
                                                   destination: .init(connection: connection, schema: "w", batchSize: 16))
                var expected = [Int32?](repeating: 1, count: rows + 1)
                func send(_ id: Int, _ servings: Int32?) throws {
                    expected[id] = servings
                    if writer.append(id: Int64(id), ["servings": servings]) { try writer.flush(apply: false) }
                }
                func table() throws -> [Int32?] {
                    [1] + (try connection.execute("SELECT servings FROM w.recipe ORDER BY id").map { try $0.decode(Int32?.self, at: 0) })
                }
                // The rows in id order, NULLs among the values; some sent again a batch or two later
                // (the later batch wins).
                for id in 1...rows {
                    try send(id, id % 5 == 0 ? nil : Int32.random(in: 2...99, using: &random))
                    if id > 20, id % 7 == 0 { try send(id - 20, Int32.random(in: 100...199, using: &random)) }
                }
                try writer.flush(apply: false)
                #expect(try table() == expected, "batches of close ids are applied as they are sent")

                // Distinct ids from all over the table: they wait for the stage's flush.
                let before = expected
                for id in Array(1...rows).shuffled(using: &random).prefix(100) {
                    try send(id, Bool.random(using: &random) ? nil : Int32.random(in: 200...299, using: &random))
                }
                try writer.flush(apply: false)
                #expect(try table() == before, "batches spread over the table wait for the flush")
                try writer.flush(apply: true)
                #expect(try table() == expected)
            }
        }
    }

    /// A stage's last batch, when nothing waits in a temporary table, goes as one statement of
    /// arrays: rows in id order each once (joined as they are), or ids out of order and repeated
    /// (the last value sent wins), NULLs among the values.
    @Test(arguments: [11, 12, 13, 14] as [UInt64])
    func aLastBatchOfArraysAppliesTheLastValueOfEachRow(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let v3 = try #require(Self.family.version(named: "v3"))
        let rows = 200
        try await Self.withRecipes(rows, of: v3) { connection in
            for ordered in [true, false] {
                try connection.transaction { connection in
                    let writer = try DestinationWriter(.update, entity: "Recipe", keys: ["servings", "name"], version: v3,
                                                       schema: v3.relationalSchema(), destination: .init(connection: connection, schema: "w", batchSize: 1_000))
                    var expected = try connection.execute("SELECT id, servings, name FROM w.recipe ORDER BY id").map {
                        (try $0.decode(Int64.self, at: 0), try $0.decode(Int32?.self, at: 1), try $0.decode(String.self, at: 2))
                    }
                    let ids: [Int] = ordered
                        ? (1...rows).filter { _ in Bool.random(using: &random) }
                        : (0..<rows).map { _ in Int.random(in: 1...rows, using: &random) }
                    for id in ids {
                        let servings: Int32? = Int.random(in: 0..<4, using: &random) == 0 ? nil : Int32.random(in: 2...99, using: &random)
                        let name = "Renamed \(UInt16.random(in: 0 ... .max, using: &random))"
                        expected[id - 1] = (Int64(id), servings, name)
                        #expect(!writer.append(id: Int64(id), ["servings": servings, "name": name]))
                    }
                    #expect(try writer.flush(apply: true), "one statement, queued")
                    try connection.sendQueuedStatements()
                    let table = try connection.execute("SELECT id, servings, name FROM w.recipe ORDER BY id").map {
                        (try $0.decode(Int64.self, at: 0), try $0.decode(Int32?.self, at: 1), try $0.decode(String.self, at: 2))
                    }
                    #expect(table.map(\.0) == expected.map(\.0) && table.map(\.1) == expected.map(\.1) && table.map(\.2) == expected.map(\.2),
                            "ordered: \(ordered)")
                }
            }
        }
    }
}
