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

    @Test(arguments: [7, 8] as [UInt64])
    func updatesLandByBatchOrAtTheFlush(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let v3 = try #require(Self.family.version(named: "v3"))
        let rows = 600
        try await TestPostgres.withDatabase { connection in
            try connection.fixtureScript("CREATE SCHEMA w")
            try connection.fixtureScript(v3.relationalSchema().createStatements(inSchema: "w", quoting: connection).joined(separator: ";\n"))
            try connection.execute("INSERT INTO w.recipe (id, name, servings) SELECT g, 'Recipe ' || g, 1 FROM generate_series(1, \(rows)) g")
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
}
