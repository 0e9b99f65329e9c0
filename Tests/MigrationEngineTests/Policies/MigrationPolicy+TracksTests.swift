import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Seed 004: a Swift policy parses each track's JSON list of artists, creates every artist once
/// (a lookup table keyed by name) and links tracks and artists through the join table.
struct TrackArtistsFromJSON: MigrationPolicy {
    struct BadJSON: Error, CustomStringConvertible { let description: String }

    /// The JSON becomes Artist rows and links.
    var transforms: [String] { ["artistsJSON"] }

    /// Its Artist rows are keyed by names inside a JSON list, several per row: not one key per row,
    /// which catch-up could follow. Online, its step runs writes-wait.
    var locality: PolicyLocality { .readsOtherRows("its Artist rows are made once per name in a JSON list, several per row, which catch-up cannot follow by key") }

    func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
        guard let json = try source.string("artistsJSON") else { return }
        guard let names = try? JSONDecoder().decode([String].self, from: Data(json.utf8)) else {
            throw BadJSON(description: "artistsJSON is not a JSON array of strings: \(json)")
        }
        var linked: Set<Int64> = []
        for name in names {
            let artist = try context.lookupOrCreate("Artist", name) { try context.insert("Artist", ["name": name]) }
            // A name listed twice on one track is one link.
            if linked.insert(artist).inserted { try context.link("Track", "artists", from: source.id, to: artist) }
        }
    }
}

@Suite("Tracks: JSON → many-to-many Artist")
struct MigrationPolicyTracksTests {
    static var policies: PolicyRegistry {
        var registry = PolicyRegistry()
        registry.register("TrackArtistsFromJSON") { TrackArtistsFromJSON() }
        return registry
    }

    @Test func artistsAreCreatedOnceAndLinkedToEveryTrack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: fixture("Tracks"), policies: Self.policies)
            let schema = try await migrator.createTenant("radio", version: "v1").schema
            let connection = try Connection(conninfo)

            // 3,000 tracks (more than one batch of links), 40 artists, 0–4 per track, some NULL or empty.
            var random = SeededGenerator(seed: 4)
            let artists = (0..<40).map { $0 == 0 ? "Beyoncé" : $0 == 1 ? "Guns N' Roses" : $0 == 2 ? "AC/DC \"live\"" : "Artist \($0)" }
            var expected: [Int64: Set<String>] = [:]
            try connection.copyIn(unsafeSQL: "COPY \(schema).track (id, title, artists_json) FROM STDIN") { writer in
                for id in Int64(1)...3_000 {
                    let json: String?
                    if id % 50 == 0 {
                        json = nil
                    } else {
                        var names = (0..<Int.random(in: 0...4, using: &random)).map { _ in artists.randomElement(using: &random)! }
                        if id % 17 == 0, let first = names.first { names.append(first) }  // listed twice
                        let data = try JSONEncoder().encode(names)
                        json = String(decoding: data, as: UTF8.self)
                        expected[id] = Set(names)
                    }
                    writer.append(id)
                    writer.append("Track \(id)")
                    writer.append(json)
                    try writer.endRow()
                }
            }
            let distinct = Set(expected.values.flatMap { $0 })

            let result = try await migrator.migrate(tenant: "radio", to: "v2")
            #expect(result.outcome == .migrated)

            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).artist", as: Int.self) == distinct.count)
            #expect(try connection.scalar("SELECT count(DISTINCT name)::int FROM \(schema).artist", as: Int.self) == distinct.count)
            let links = try connection.rows("""
                SELECT at.track_id::text, a.name FROM \(schema).artist_tracks at JOIN \(schema).artist a ON a.id = at.artist_id
                """)
            var actual: [Int64: Set<String>] = [:]
            for link in links { actual[Int64(link[0]!)!, default: []].insert(link[1]!) }
            #expect(actual == expected.filter { !$0.value.isEmpty })
            #expect(links.count == expected.values.reduce(0) { $0 + $1.count })
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).track", as: Int.self) == 3_000)
            #expect(try await verifyClean(migrator, "radio"))
        }
    }

    @Test func aPolicyErrorNamesTheRow() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: fixture("Tracks"), policies: Self.policies)
            let schema = try await migrator.createTenant("radio", version: "v1").schema
            let connection = try Connection(conninfo)
            try connection.fixtureScript("INSERT INTO \(schema).track (id, title, artists_json) VALUES (1, 'ok', '[\"A\"]'), (2, 'bad', '{oops')")
            if let error = await migrationFailure("invalid JSON must fail the migration", {
                _ = try await migrator.migrate(tenant: "radio", to: "v2")
            }) {
                let policyError = try #require(error.underlying as? PolicyError)
                #expect(policyError.sourceRowID == 2)
                #expect(policyError.mapping == "TrackToTrackAndArtists")
                #expect(policyError.stage == "createDestinationInstances")
                #expect(error.description.contains("{oops"))
            }
            #expect(try connection.scalar("SELECT count(*)::int FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'artist'", [schema], as: Int.self) == 0)
        }
    }
}
