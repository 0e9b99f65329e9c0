import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// The guards of a proof by the way back (issue 30): what the way back reads must be what the
/// way up left. A proof is withheld when an earlier mapping of the way back writes a table it reads
/// (`trustsOthers`), or when the way back's step moves data in such a table before its mappings run
/// (`movesDataBeforeMappings`: Tag's weight widened back); it is made in the same family where
/// neither holds. Each round trip is exact, compared per column as text.
///
/// The family (`Fixtures/WayBackGuards`): v1 → v2 drops Item's `d` and narrows Tag's `weight`.
@Suite("Archive: a proof by the way back is withheld where the way back changes what it reads")
struct WayBackGuardsTests {
    static let schema = "guarded"

    /// A copy of the family whose way back is `mappings` (YAML entity mappings).
    func family(wayBack mappings: String) throws -> URL {
        try familyCopy(of: "WayBackGuards", wayBack: mappingFile(from: "v2", to: "v1", entityMappings: mappings))
    }

    static let itemFromNote = """
          - name: ItemToItem
            source: Item
            destination: Item
            attributes: { d: source.note.text }
        """
    static let noteToNote = """
          - name: NoteToNote
            source: Note
            destination: Note
            attributes: { text: source.text }
        """
    static let itemFromTag = """
          - name: ItemToItem
            source: Item
            destination: Item
            attributes: { d: "source.tag.weight::text" }
        """

    /// Creates schema ``schema`` at v1 of the family in `directory`, with its five items: `d` is
    /// its note's text, or its tag's weight, or neither; one note has no text.
    static func createTenant(of directory: URL, on connection: Connection) throws {
        let family = try ModelFamily.load(from: directory)
        try connection.fixtureScript("CREATE SCHEMA \(schema)")
        try connection.fixtureScript(family.version(named: "v1")!.relationalSchema().createStatements(inSchema: schema, quoting: connection).joined(separator: ";\n"))
        try connection.fixtureScript("""
            INSERT INTO guarded.note (id, text) VALUES (1, 'a'), (2, NULL);
            INSERT INTO guarded.tag (id, weight) VALUES (1, 7), (2, NULL);
            INSERT INTO guarded.item (id, name, d, note_id, tag_id) VALUES
                (1, 'x', 'a', 1, 1), (2, 'y', '7', NULL, 1), (3, 'z', NULL, 2, 2), (4, 'w', '', 2, NULL), (5, 'v', 'other', 1, 2);
            """)
    }

    /// Up, then down: every table is as it was; returns whether the way up made a proof.
    func roundTrip(_ directory: URL, sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> Bool {
        let migrator = try TenantMigrator(connectionString: "", familyDirectory: directory, policies: PolicyRegistry())
        let up = try migrator.plan(from: "v1", to: "v2"), down = try migrator.plan(from: "v2", to: "v1")
        return try await TestPostgres.withDatabase { connection in
            try Self.createTenant(of: directory, on: connection)
            let tables = ["item", "note", "tag"]
            func contents() throws -> [String: [[String?]]] {
                try Dictionary(uniqueKeysWithValues: tables.map { table in
                    (table, try connection.rows("SELECT t::text FROM guarded.\(table) AS t ORDER BY id"))
                })
            }
            let before = try contents()
            _ = try connection.transaction { try up.run(inSchema: Self.schema, on: $0) }
            // Proved: the rows the way back gives back are spared (a withheld proof archives every row,
            // with what the way back derives, so that an app change still wins: WayBackGuardsAppChangeTests).
            let proved = try connection.scalar("SELECT (SELECT count(*) FROM guarded._tm_archive WHERE column_name = 'd') < (SELECT count(*) FROM guarded.item)",
                                               as: Bool.self)
            _ = try connection.transaction { try down.run(inSchema: Self.schema, on: $0) }
            #expect(try contents() == before, sourceLocation: sourceLocation)
            return proved
        }
    }

    @Test func aProofThroughALinkIsMadeWhereNothingChangesWhatItReads() async throws {
        let directory = try family(wayBack: Self.itemFromNote + "\n" + Self.noteToNote)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        #expect(try await roundTrip(directory))
    }

    /// `trustsOthers`: NoteToNote runs first and rewrites the notes ItemToItem reads.
    @Test func aProofIsWithheldWhenAnEarlierMappingWritesWhatItReads() async throws {
        let directory = try family(wayBack: Self.noteToNote + "\n" + Self.itemFromNote)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        #expect(try await !roundTrip(directory))
    }

    /// `movesDataBeforeMappings`: the way back widens Tag's weight before ItemToItem reads it.
    @Test func aProofIsWithheldWhenItsStepMovesWhatItReadsFirst() async throws {
        let directory = try family(wayBack: Self.itemFromTag)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        #expect(try await !roundTrip(directory))
    }
}
