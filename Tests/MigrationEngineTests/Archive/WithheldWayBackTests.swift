import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 30, class 6 where the proof's guards withhold it: the way up archives every row of the
/// dropped column (``WayBackGuardsTests``), so the archive alone gives back what the way up took.
/// An edited or removed way-back file, or an archive whose recorded declaration cannot be used (a
/// role other than the migrator may write it), must not refuse the rollback ("put it back as it
/// was"): every value comes back as it was, and the file as it is decides only what rows made
/// since get.
///
/// The family is ``WayBackGuardsTests``'s: v1 → v2 drops Item's `d`; the way back derives it from
/// the item's note's text (after a mapping that rewrites the notes), or from its tag's weight
/// (which its step widens first).
@Suite("Archive: a withheld proof needs no way-back file at the rollback")
struct WithheldWayBackTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let wayBack: String
        /// What happens between the way up and the way down (the family's directory, the connection).
        let between: @Sendable (URL, Connection) throws -> Void
        /// What the row the app makes after the way up (id 6) gets at the way down.
        let made: String?
        var testDescription: String { name }
    }

    static let noteFirst = WayBackGuardsTests.noteToNote + "\n" + WayBackGuardsTests.itemFromNote
    static func wayBackFile(_ directory: URL) -> URL { directory.appendingPathComponent("Mappings/v2-to-v1.yaml") }
    static func remove(_ directory: URL, _: Connection) throws { try FileManager.default.removeItem(at: wayBackFile(directory)) }
    /// The way back now derives `d` from the item's name.
    static func edit(_ directory: URL, _: Connection) throws {
        try "source: v2\ndestination: v1\nentityMappings:\n\(WayBackGuardsTests.noteToNote)\n  - name: ItemToItem\n    source: Item\n    destination: Item\n    attributes: { d: \"upper(source.name)\" }\n"
            .write(to: wayBackFile(directory), atomically: true, encoding: .utf8)
    }

    static let cases: [Case] = [
        Case(name: "an earlier mapping writes what it reads; the file is removed", wayBack: noteFirst, between: remove, made: nil),
        Case(name: "an earlier mapping writes what it reads; the file is edited", wayBack: noteFirst, between: edit, made: "N6"),
        Case(name: "its step moves what it reads first; the file is removed", wayBack: WayBackGuardsTests.itemFromTag, between: remove, made: nil),
        Case(name: "its step moves what it reads first; the file is edited", wayBack: WayBackGuardsTests.itemFromTag, between: edit, made: "N6"),
        Case(name: "the file is removed and another role may write the archive", wayBack: noteFirst, between: { directory, connection in
            try remove(directory, connection)
            try connection.execute(unsafeSQL: "GRANT INSERT ON guarded._tm_archive TO PUBLIC")
        }, made: nil),
    ]

    /// Up; the file changes; the app makes item 6; down: every item the way up saw is as it was.
    @Test(arguments: cases)
    func everyValueComesBackFromTheArchiveAlone(_ example: Case) async throws {
        let directory = try WayBackGuardsTests().family(wayBack: example.wayBack)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let up = try TenantMigrator(connectionString: "", familyDirectory: directory, policies: PolicyRegistry()).plan(from: "v1", to: "v2")
        try await TestPostgres.withDatabase { connection in
            let schema = WayBackGuardsTests.schema
            try WayBackGuardsTests.createTenant(of: directory, on: connection)
            _ = try connection.transaction { try up.run(inSchema: schema, on: $0) }
            // Withheld: every row archived.
            #expect(try connection.scalar("SELECT count(*)::int FROM guarded._tm_archive WHERE column_name = 'd'", as: Int32.self) == 5)
            try example.between(directory, connection)
            try connection.fixtureScript("INSERT INTO guarded.item (id, name, note_id, tag_id) VALUES (6, 'n6', 1, 1)")
            let down = try TenantMigrator(connectionString: "", familyDirectory: directory, policies: PolicyRegistry()).plan(from: "v2", to: "v1")
            _ = try connection.transaction { try down.run(inSchema: schema, on: $0) }
            #expect(try connection.rows("SELECT d FROM guarded.item ORDER BY id").map { $0[0] } == ["a", "7", nil, "", "other", example.made])
            #expect(try connection.rows("SELECT text FROM guarded.note ORDER BY id").map { $0[0] } == ["a", nil])
        }
    }
}
