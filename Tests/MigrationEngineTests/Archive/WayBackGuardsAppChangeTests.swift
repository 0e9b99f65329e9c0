import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 30, item 6 of the remaining work: a way back whose proof its other guards withhold
/// (`trustsOthers`, `movesDataBeforeMappings`) archives every value of the dropped column, but
/// the app's change to what the way back reads must still win, exactly as where the proof is made
/// (docs/Archive.md, "Proof by the way back", 3.: "a change the app made since wins in every row,
/// archived or not"). The archived value it replaces is kept, superseded.
///
/// The family is ``WayBackGuardsTests``'s: v1 → v2 drops Item's `d`; the way back derives it from
/// the item's note's text, or from its tag's weight.
@Suite("Archive: an app change wins where the proof's guards withhold it")
struct WayBackGuardsAppChangeTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let wayBack: String
        /// Whether the way up proves (spares the rows the way back gives back).
        let proves: Bool
        /// Every item's d after the app's changes and the way down.
        let expected: [String?]
        /// The superseded entries that must be kept (`row d`).
        let superseded: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "proved", wayBack: WayBackGuardsTests.itemFromNote + "\n" + WayBackGuardsTests.noteToNote, proves: true,
             expected: ["b", "7", nil, "", "b"], superseded: ["5 other"]),
        Case(name: "withheld: an earlier mapping writes what it reads", wayBack: WayBackGuardsTests.noteToNote + "\n" + WayBackGuardsTests.itemFromNote,
             proves: false, expected: ["b", "7", nil, "", "b"], superseded: ["5 other"]),
        Case(name: "withheld: its step moves what it reads first", wayBack: WayBackGuardsTests.itemFromTag, proves: false,
             expected: ["8", "8", nil, "", "other"], superseded: ["1 a"]),
    ]

    /// Up; the app changes note 1's text (a → b) and tag 1's weight (7 → 8); down.
    @Test(arguments: cases)
    func anAppChangeToWhatTheWayBackReadsWins(_ example: Case) async throws {
        let guards = WayBackGuardsTests()
        let directory = try guards.family(wayBack: example.wayBack)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let migrator = try TenantMigrator(connectionString: "", familyDirectory: directory, policies: PolicyRegistry())
        let up = try migrator.plan(from: "v1", to: "v2"), down = try migrator.plan(from: "v2", to: "v1")
        try await TestPostgres.withDatabase { connection in
            let schema = WayBackGuardsTests.schema
            try WayBackGuardsTests.createTenant(of: directory, on: connection)
            _ = try connection.transaction { try up.run(inSchema: schema, on: $0) }
            let proved = try connection.scalar("SELECT (SELECT count(*) FROM guarded._tm_archive WHERE column_name = 'd') < (SELECT count(*) FROM guarded.item)",
                                               as: Bool.self)
            #expect(proved == example.proves)
            try connection.fixtureScript("UPDATE guarded.note SET text = 'b' WHERE id = 1; UPDATE guarded.tag SET weight = 8 WHERE id = 1")
            _ = try connection.transaction { try down.run(inSchema: schema, on: $0) }
            #expect(try connection.rows("SELECT d FROM guarded.item ORDER BY id").map { $0[0] } == example.expected)
            let kept = try connection.rows("SELECT row_id::text || ' ' || value FROM guarded._tm_archive WHERE superseded AND column_name = 'd' ORDER BY row_id")
                .map { $0[0] ?? "" }
            for entry in example.superseded { #expect(kept.contains(entry), "superseded: \(kept)") }
        }
    }
}
