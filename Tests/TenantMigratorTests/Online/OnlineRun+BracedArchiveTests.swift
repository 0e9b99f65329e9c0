import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// An online run of a step that makes rows per distinct key (`distinct:`) renumbers them after a
/// catch-up round whose changes move keys, and rewrites the links the archive keeps in the
/// `left_value` of the dropped column they are derived from (`{"status_id": "3"}`). The same step
/// archives columns that survive, rewritten in place, whose `left_value` is the column's own text:
/// text the app wrote that starts with `{` (`{draft}`, not JSON), or JSON of the app's that holds
/// the link's name (``BracedArchiveFamily``). Neither is a link: the run migrates, the entry stays
/// as the offline twin has it, and every value comes back on the way down, online or offline.
/// Before, the first failed the run (22P02) and the second lost the app's meta on the way down.
@Suite("Online runs and archived text that starts with a brace", .serialized)
struct OnlineRunBracedArchiveTests {
    typealias Family = BracedArchiveFamily

    @Test(arguments: Family.AppValue.allCases, [true, false])
    func keysMoveAndTheArchivedTextOfASurvivingColumnStays(value: Family.AppValue, downOnline: Bool) async throws {
        let family = try OnlineFamilyDirectory("Issues", versions: Family.versions, mappings: Family.mappings)
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: family.directory, logger: .quiet("OnlineBracedArchive"))
            let connection = try Connection(conninfo)
            try await OnlineTwins.create(migrator, connection) { connection, schema in
                for statement in Family.seed(value, schema) { try connection.execute(unsafeSQL: statement) }
            }
            try await OnlineTwins.migrate(migrator, conninfo, to: "v2", writes: [.catchingUp: Family.catchUpWrites], batchRows: 10)

            for schema in OnlineTwins.schemas {
                // The keys moved (status 1 went): ids by first issue, as offline.
                let statuses = try connection.column(String(format: Family.statuses, schema), as: String.self)
                #expect(statuses == Family.expectedStatuses, "\(schema)")
                // The surviving column's entry is what the step left: no link was read in it.
                let entries = try connection.column(String(format: Family.entries, schema), as: String.self)
                #expect(entries == [value.entry], "\(schema)")
                // The dropped status's entries name each row's link as renumbered.
                let links = try connection.column(String(format: Family.links, schema), as: String.self)
                #expect(links == Family.expectedLinks, "\(schema)")
            }

            // The way down gives back every value: each status by its (renumbered) link, tags and meta as the app wrote them.
            let down = try await migrator.migrate(tenant: "online", MigrationRequest(.move, to: "v1", allowDestructive: true, online: downOnline ? .on : .off))
            #expect(down.outcome == .migrated)
            let twin = try await migrator.migrate(tenant: "twin", MigrationRequest(.move, to: "v1", allowDestructive: true))
            #expect(twin.outcome == .migrated)
            for schema in OnlineTwins.schemas {
                let issues = try connection.column(String(format: Family.issues, schema), as: String.self)
                #expect(issues == Family.expectedIssues(value), "\(schema)")
                let superseded = try connection.column(String(format: Family.superseded, schema), as: String.self)
                #expect(superseded.isEmpty, "\(schema): superseded entries")
            }
        }
    }
}
