import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import Testing

/// Associations kept in memory up to a limit and spilled to a temporary table beyond it give the
/// same answers as a dictionary, whatever order they are asked in.
@Suite struct AssociationStoreTests {
    /// Three mappings' pairs from a seeded generator (sources ascending with gaps, none to many
    /// destinations each, one source with more destinations than a window holds), kept with a
    /// limit of 8 pairs in memory; then asked in ascending, descending and random order, with
    /// sources that have no pairs among them.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func answersLikeADictionary(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let mappings = ["A", "B", "C"]
        var expected: [String: [Int64: [Int64]]] = [:]
        try await TestPostgres.withDatabase { connection in
            try connection.transaction { connection in
                let store = AssociationStore(memoryLimit: 8)
                for mapping in mappings {
                    var source: Int64 = Int64.random(in: -5...5, using: &random)
                    for _ in 0..<Int.random(in: 20...200, using: &random) {
                        source += Int64.random(in: 1...4, using: &random)
                        let count = source % 37 == 0 ? 50 : Int.random(in: 0...3, using: &random)
                        for _ in 0..<count {
                            let destination = Int64.random(in: 1...1_000, using: &random)
                            store.append(mapping: mapping, source: source, destination: destination)
                            expected[mapping, default: [:]][source, default: []].append(destination)
                        }
                        // As the runner does after each row.
                        try store.spillIfFull(on: connection)
                    }
                }
                for mapping in mappings + ["unknown"] {
                    let known = expected[mapping] ?? [:]
                    let low = (known.keys.min() ?? 0) - 2, high = (known.keys.max() ?? 0) + 2
                    var order = Array(low...high)
                    for pass in 0..<3 {
                        if pass == 1 { order.reverse() }
                        if pass == 2 { order.shuffle(using: &random) }
                        for source in order {
                            let found = try store.destinations(of: source, mapping: mapping, on: connection)
                            #expect(found.sorted() == (known[source] ?? []).sorted(), "mapping \(mapping), source \(source), pass \(pass)")
                        }
                    }
                }
                // Pairs added after lookups are found too.
                store.append(mapping: "A", source: 1_000_000, destination: 7)
                try store.spillIfFull(on: connection)
                #expect(try store.destinations(of: 1_000_000, mapping: "A", on: connection) == [7])
            }
        }
    }
}
