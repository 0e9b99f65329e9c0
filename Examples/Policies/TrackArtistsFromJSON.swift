import Foundation
import MigrationEngine

/// Seed 004: `Track.artistsJSON` (`'["A","B"]'`) becomes `Track.artists ↔ Artist.tracks`, each
/// artist created once (a lookup table keyed by name) and linked through the join table.
public struct TrackArtistsFromJSON: MigrationPolicy {
    public init() {}

    public var transforms: [String] { ["artistsJSON"] }

    /// Its Artist rows are keyed by names inside a JSON list, several per row: not one key per row,
    /// which catch-up could follow. Online, its step runs writes-wait.
    public var locality: PolicyLocality { .readsOtherRows("its Artist rows are made once per name in a JSON list, several per row, which catch-up cannot follow by key") }

    public func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
        guard let json = try source.string("artistsJSON") else { return }
        let names = try JSONDecoder().decode([String].self, from: Data(json.utf8))
        var linked: Set<Int64> = []
        for name in names {
            let artist = try context.lookupOrCreate("Artist", name) { try context.insert("Artist", ["name": name]) }
            if linked.insert(artist).inserted { try context.link("Track", "artists", from: source.id, to: artist) }
        }
    }
}
