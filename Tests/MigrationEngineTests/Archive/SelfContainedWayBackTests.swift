import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 30, class 6: the archive is self-contained. A way up that proves what its way back gives
/// back records that way back's declaration with the archive; if the mapping file is removed or
/// edited before the rollback, the rollback evaluates what the archive recorded to give back what
/// the way up took, and the file as it is now decides only what the way down adds (rows the app
/// made since). A recorded declaration PostgreSQL cannot vouch for (volatile, reading outside the
/// tenant) is never evaluated: the rollback is refused as before.
///
/// The family (`Fixtures/WayBackTrust`): v1 `Item{name, d, at}`, v2 `Item{name, local}`; its way
/// back v2 → v1 is written by each test (`d: lower(source.name)` at the way up).
@Suite("Archive: the way back as the archive recorded it")
struct SelfContainedWayBackTests {
    static let schema = "trusted"
    let trust = WayBackTrustTests()

    func writeWayBack(_ directory: URL, _ expression: String) throws {
        try itemToItemMapping(from: "v2", to: "v1", attributes: [("d", expression)])
            .write(to: directory.appendingPathComponent("Mappings/v2-to-v1.yaml"), atomically: true, encoding: .utf8)
    }

    func plan(_ directory: URL, from: String, to: String) throws -> MigrationPlan {
        try TenantMigrator(connectionString: "", familyDirectory: directory, policies: PolicyRegistry()).plan(from: from, to: to)
    }

    /// Up with `d: lower(source.name)` (rows 2 and 3 archived, 1 and 4 proved), then `between`
    /// (the file and the app), then down with the family as it is then.
    func upThenDown(_ connection: Connection, _ directory: URL, between: () throws -> Void) throws {
        try trust.tenantAtV1(connection, directory: directory, d: ["n1", "other", nil, "n4"])
        let up = try plan(directory, from: "v1", to: "v2")
        _ = try connection.transaction { try up.run(inSchema: Self.schema, on: $0) }
        #expect(try trust.entries(connection, "d") == [["2", "other"], ["3", nil]])
        try between()
        let down = try plan(directory, from: "v2", to: "v1")
        _ = try connection.transaction { try down.run(inSchema: Self.schema, on: $0) }
    }

    func items(_ connection: Connection) throws -> [[String?]] {
        try connection.rows("SELECT id::text, name, d FROM trusted.item ORDER BY id")
    }

    func family() throws -> URL {
        let directory = try trust.family(wayBack: [("d", "lower(source.name)")])
        return directory
    }

    /// The file is removed: the rollback gives back every value, the proved rows by the recorded
    /// declaration (row 1 renamed by the app meanwhile: its change wins, as it would with the file).
    @Test func aRemovedWayBackStillGivesBackWhatTheWayUpTook() async throws {
        let directory = try family()
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        try await TestPostgres.withDatabase { connection in
            try upThenDown(connection, directory) {
                try FileManager.default.removeItem(at: directory.appendingPathComponent("Mappings/v2-to-v1.yaml"))
                try connection.execute("UPDATE trusted.item SET name = 'M1' WHERE id = 1")
            }
            #expect(try items(connection) == [["1", "M1", "m1"], ["2", "n2", "other"], ["3", "n3", nil], ["4", "n4", "n4"]])
        }
    }

    /// The file is edited: every row the way up saw comes back as it was; a row the app made since
    /// gets what the file says now.
    @Test func anEditedWayBackDecidesOnlyWhatTheWayDownAdds() async throws {
        let directory = try family()
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        try await TestPostgres.withDatabase { connection in
            try upThenDown(connection, directory) {
                try writeWayBack(directory, "upper(source.name)")
                try connection.execute("INSERT INTO trusted.item (id, name) VALUES (5, 'n5')")
            }
            #expect(try items(connection) == [["1", "n1", "n1"], ["2", "n2", "other"], ["3", "n3", nil], ["4", "n4", "n4"], ["5", "n5", "N5"]])
        }
    }

    /// A recorded declaration changed in the archive to one PostgreSQL cannot vouch for (it reads
    /// outside the tenant) is not evaluated: the rollback is refused, and the tenant stays at v2.
    @Test func aRecordedDeclarationThatCannotBeTrustedIsNotEvaluated() async throws {
        let directory = try family()
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        try await TestPostgres.withDatabase { (connection: Connection) throws in
            var refused: (any Error)?
            do {
                try upThenDown(connection, directory) {
                    try FileManager.default.removeItem(at: directory.appendingPathComponent("Mappings/v2-to-v1.yaml"))
                    try connection.fixtureScript("CREATE TABLE public.planted (v text); INSERT INTO public.planted VALUES ('planted')")
                    try connection.execute("UPDATE trusted._tm_archive SET value = replace(value, 'lower(source.name)', '(SELECT v FROM public.planted)') "
                        + "WHERE column_name LIKE '#way back%'")
                }
            } catch {
                refused = error
            }
            _ = try? connection.execute("DROP TABLE public.planted")
            #expect(refused.map { "\($0)" }?.contains("Put WayBackTrust/Mappings/v2-to-v1.yaml back as it was") == true, "\(String(describing: refused))")
            #expect(try connection.rows("SELECT count(*)::text FROM information_schema.columns WHERE table_schema = 'trusted' AND table_name = 'item' AND column_name = 'd'") == [["0"]])
        }
    }

    /// An archive another role may write to (a grant made since it was created) could hold a
    /// declaration that role planted: it is not evaluated, and the rollback is refused.
    @Test func aRecordedDeclarationOthersMayWriteIsNotEvaluated() async throws {
        let directory = try family()
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        try await TestPostgres.withDatabase { (connection: Connection) throws in
            let other = "tm_writer_\(UUID().uuidString.prefix(8).lowercased())"
            try connection.execute(unsafeSQL: "CREATE ROLE \(other)")
            defer { _ = try? connection.fixtureScript("DROP OWNED BY \(other); DROP ROLE \(other)") }
            var refused: (any Error)?
            do {
                try upThenDown(connection, directory) {
                    try FileManager.default.removeItem(at: directory.appendingPathComponent("Mappings/v2-to-v1.yaml"))
                    try connection.execute(unsafeSQL: "GRANT INSERT ON trusted._tm_archive TO \(other)")
                }
            } catch {
                refused = error
            }
            #expect(refused.map { "\($0)" }?.contains("a role other than the migrator may write the archive") == true, "\(String(describing: refused))")
        }
    }
}
