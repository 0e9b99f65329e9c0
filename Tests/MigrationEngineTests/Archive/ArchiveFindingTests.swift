import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 30, "Must show": `--rehearse` says where the archive would not give a value back as it
/// was, by entity, attribute, table, column and row count (``ArchiveFinding``), in text and JSON,
/// for each class the tenant's data shows: links whose target row the app replaced (class 1),
/// archived values the app's changes supersede, through the row or through other rows (classes 4
/// and 5), and values that do not fit after a narrowing. Run with the CLI against PostgreSQL.
@Suite("Archive: where the rehearsal says the archive would not give back")
struct ArchiveFindingTests {
    private func run(_ arguments: [String], _ conninfo: String, family: String) async throws -> TenantMigrateExecutable.Output {
        try await TenantMigrateExecutable.run(arguments, database: conninfo, migrations: fixture(family))
    }

    /// The findings of the one tenant of a `--json` rehearsal, wherever the document nests them.
    private func findings(_ json: String) throws -> [ArchiveFinding] {
        func search(_ value: Any) -> [Any] {
            if let object = value as? [String: Any] {
                if let found = object["findings"] as? [Any] { return found }
                return object.values.flatMap(search)
            }
            if let array = value as? [Any] { return array.flatMap(search) }
            return []
        }
        let found = search(try JSONSerialization.jsonObject(with: Data(json.utf8)))
        return try JSONDecoder().decode([ArchiveFinding].self, from: JSONSerialization.data(withJSONObject: found))
    }

    /// Class 1 (KeyedLinkTarget): the app gives the handle ann to another person at v2; the
    /// rehearsed rollback names the two links it would not give back, by relationship and column.
    @Test func linksWhoseTargetRowWasReplacedAreNamed() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (_, connection, schema) = try await fixtureTenantMigratedToV2("KeyedLinkTarget", conninfo, insert: KeyedLinkTargetTests.rows)
            try connection.execute(unsafeSQL: "UPDATE \(schema).person SET handle = 'ann.smith' WHERE handle = 'ann'")
            try connection.execute(unsafeSQL: "INSERT INTO \(schema).person (handle, \"full\") VALUES ('ann', 'Ann Other')")
            let text = try await run(["rollback", "--tenant", "acme", "--to", "v1", "--rehearse"], conninfo, family: "KeyedLinkTarget")
            #expect(text.status == 0, "\(text.stdout)\n\(text.stderr)")
            #expect(text.stdout.contains("Post.author (post.author_id): 1 link not given back (no row is what it pointed at)")
                && text.stdout.contains("Line.author (line.author_id): 1 link not given back"), "\(text.stdout)")
            // The rehearsal's line does not claim every value came back.
            #expect(!text.stdout.contains("the way back gave every value back")
                && text.stdout.contains("2 archived values the step does not give back stay in the archive (below)"), "\(text.stdout)")
            // Nor does a fleet's summary line.
            let fleet = try await run(["rollback", "--all", "--to", "v1", "--rehearse"], conninfo, family: "KeyedLinkTarget")
            #expect(fleet.status == 0 && !fleet.stdout.contains("the way back gave every value back")
                && fleet.stdout.contains("2 archived values the steps do not give back stay in the archive"), "\(fleet.stdout)\n\(fleet.stderr)")
            let json = try await run(["rollback", "--tenant", "acme", "--to", "v1", "--rehearse", "--json"], conninfo, family: "KeyedLinkTarget")
            let found = try findings(json.stdout).sorted { $0.table < $1.table }
            #expect(found.map { [$0.kind.rawValue, $0.entity, $0.attribute, $0.table, $0.column, "\($0.rows)"] }
                == [["linksNotRestored", "Line", "author", "line", "author_id", "1"], ["linksNotRestored", "Post", "author", "post", "author_id", "1"]],
                "\(json.stdout)")
            #expect(try connection.scalar("SELECT count(*) FROM \(schema)._tm_archive WHERE superseded", as: Int64.self) == 0)
        }
    }

    /// Class 5 (OtherRows): the app edits and moves the comments and unlinks a tag the way back
    /// reads; the rehearsed rollback names each attribute whose archived value it would supersede.
    @Test func valuesTheAppsChangesThroughOtherRowsSupersedeAreNamed() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let other = OtherRowsTests()
            let (migrator, connection, schema) = try await other.tenant(conninfo)
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            try connection.fixtureScript(other.sql(OtherRowsTests.appChanges, schema))
            let text = try await run(["rollback", "--tenant", "acme", "--to", "v1", "--rehearse"], conninfo, family: "OtherRows")
            #expect(text.status == 0, "\(text.stdout)\n\(text.stderr)")
            #expect(text.stdout.contains("Post.latest (post.latest): 1 archived value superseded by the app's changes")
                && text.stdout.contains("(post.tag_names): 1 archived value superseded by the app's changes"), "\(text.stdout)")
            let json = try await run(["rollback", "--tenant", "acme", "--to", "v1", "--rehearse", "--json"], conninfo, family: "OtherRows")
            #expect(try findings(json.stdout).map { [$0.kind.rawValue, $0.table, $0.column, "\($0.rows)"] }.sorted { ($0[2] ?? "") < ($1[2] ?? "") }
                == [["valuesSuperseded", "post", "latest", "1"], ["valuesSuperseded", "post", "tag_names", "1"]], "\(json.stdout)")
        }
    }

    /// Class 4 (Superseded, through the row itself): v2 drops Item.d, whose way back
    /// derives it from `name`; the app renames a row at v2. Named with its one row.
    @Test func valuesTheAppsChangesToTheRowSupersedeAreNamed() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (_, connection, schema) = try await fixtureTenantMigratedToV2("Superseded", conninfo,
                                                                        insert: "INSERT INTO {schema}.item (id, name, d) VALUES (1, 'q', 'other'), (2, 'r', 'r')")
            try connection.execute(unsafeSQL: "UPDATE \(schema).item SET name = 'q2' WHERE id = 1")
            let text = try await run(["rollback", "--tenant", "acme", "--to", "v1", "--rehearse"], conninfo, family: "Superseded")
            #expect(text.status == 0 && text.stdout.contains("Item.d (item.d): 1 archived value superseded by the app's changes"),
                    "\(text.stdout)\n\(text.stderr)")
        }
    }

    /// A numeric narrowed in its integer digits on the way down (NumericNarrowing): a row made
    /// since that the old type cannot hold fails the rehearsal, named by attribute, column and row.
    @Test func valuesThatDoNotFitAfterANarrowingAreNamed() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (_, connection, schema) = try await fixtureTenantMigratedToV2("NumericNarrowing", conninfo, insert: "INSERT INTO {schema}.price (amount) VALUES (99999.999), (1.25)")
            try connection.execute(unsafeSQL: "INSERT INTO \(schema).price (amount) VALUES (123456.7)")
            let text = try await run(["rollback", "--tenant", "acme", "--to", "v1", "--rehearse"], conninfo, family: "NumericNarrowing")
            let output = text.stdout + text.stderr
            #expect(text.status != 0 && output.contains("Price.amount (price.amount) the type numeric(8,3) back, but 1 row of price (3)")
                && output.contains("22003"), "\(output)")
            #expect(try connection.scalar("SELECT count(*) FROM \(schema).price", as: Int64.self) == 3)
        }
    }
}
