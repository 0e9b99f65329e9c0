import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// A step that drops a many-to-many archives its join table's links, each by its pair of ids (the
/// entry's `row_key`, its `row_id` 0). Online, the links the app adds, removes and moves while the
/// run catches up are archived, or no longer, as offline (``DroppedJoinTableFamily``): the way
/// down, online or offline, gives back each link the app left, and no link it removed. Before,
/// catch-up merged the archive entries of rows keyed by an `id` only: a link added during the run
/// had no entry (lost on the way down), and a link removed kept its entry (back again on the way
/// down). The generated online round trips (`OnlineRoundTripPropertyTests`) found it.
@Suite("Online runs archive the links of a dropped join table as offline", .serialized)
struct OnlineRunJoinTableArchiveTests {
    typealias Family = DroppedJoinTableFamily

    @Test(arguments: [true, false])
    func linksAddedAndRemovedDuringTheRunComeBackAsOffline(downOnline: Bool) async throws {
        let family = try OnlineFamilyDirectory("Shelf", versions: Family.versions)
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection) = try await OnlineTwins.make(conninfo, family, logger: "OnlineJoinTableArchive") { connection, schema in
                for statement in Family.seed(schema) { try connection.execute(unsafeSQL: statement) }
            }
            let online = try await OnlineTwins.migrate(migrator, conninfo, to: "v2", writes: [.catchingUp: Family.catchUpWrites], batchRows: 2)
            let archived = try OnlineTwins.schemas.map { try connection.column(String(format: Family.entries, $0), as: String.self) }
            #expect(archived[0] == archived[1], "the links archived online \(archived[0]), offline \(archived[1])")
            #expect(archived[1] == Family.expectedEntries)

            var down = online
            down.settings.online.checkpoint = nil
            let back = try await down.migrate(tenant: "online", MigrationRequest(.move, to: "v1", allowDestructive: true, online: downOnline ? .on : .off))
            #expect(back.outcome == .migrated, "\(back.error ?? "")")
            let twin = try await migrator.migrate(tenant: "twin", MigrationRequest(.move, to: "v1", allowDestructive: true))
            #expect(twin.outcome == .migrated, "\(twin.error ?? "")")
            for schema in OnlineTwins.schemas {
                #expect(try connection.column(String(format: Family.links, schema), as: String.self) == Family.expectedLinks, "\(schema): the links back at v1")
            }
        }
    }

    /// A join table whose pair turns (``DroppedJoinTableFamily/turnedV2``): catch-up finds the rows
    /// it made from each changed link by the pair in the source's order (before, it matched the
    /// destination's `(badge_id, book_id)` against the source's `(book_id, tag_id)`: the app's new
    /// links were lost, and a link it removed stayed).
    @Test func linksChangedDuringTheRunOfAJoinTableWhosePairTurnsAreAsOffline() async throws {
        let family = try OnlineFamilyDirectory("Shelf", versions: [("v1", Family.v1), ("v2", Family.turnedV2)])
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection) = try await OnlineTwins.make(conninfo, family, logger: "OnlineTurnedJoinTable") { connection, schema in
                for statement in Family.seed(schema) { try connection.execute(unsafeSQL: statement) }
            }
            try await OnlineTwins.migrate(migrator, conninfo, to: "v2", writes: [.catchingUp: Family.catchUpWrites], batchRows: 2)
            for schema in OnlineTwins.schemas {
                #expect(try connection.column(String(format: Family.turnedLinks, schema), as: String.self) == Family.expectedLinks, "\(schema)")
            }
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)
        }
    }
}
