import Foundation
import LibPQ
import PostgresTestSupport
@testable import TenantMigrator
import TenantMigratorTestSupport
import Testing
import TypedSQL

/// The change capture of an online run inside the tenant's schema, as Citus needs it
/// (docs/Citus.md): its log and functions there under the shadow's naming, its triggers made and
/// dropped under `citus.enable_unsafe_triggers`, and its liveness a lease row of that schema that a
/// thread of the runner's own renews (``InSchemaLease``), all read on the tenant's worker.
extension CitusTests {
    /// The app's writes (an app role's, which never set anything) are logged on the worker while
    /// the renewer keeps the lease, past its first expiry; the app role can neither write the log
    /// nor the lease, nor drop the trigger; once the renewer stopped and the lease expired, the
    /// app's writes go through and log nothing, and a renewal says it lapsed; the triggers are
    /// dropped as an online run's cleanup drops them.
    @Test func onlineOnCitusTheInSchemaCaptureLogsWhileItsLeaseIsRenewedAndNothingOnceItLapsed() async throws {
        try await CitusFixture.with { fixture in
            let schema = try await fixture.onlineTenant()
            let connection = fixture.connection
            let schemas = try OnlineSchemas.of(schema, on: connection)
            // 9 s: ten times what the renewer's thread needs on a busy machine to renew it (every 3 s)
            // before it lapses; a lease of 900 ms lapsed under load before the app's first write.
            let lease = InSchemaLease(schema: schema, naming: .citusShadow, holder: "run 1", duration: .seconds(9))
            let capture = ChangeCapture(schemas: schemas, inSchemaLease: lease)
            let tables = ["recipe", "recipe_ingredient"]
            try connection.transaction { connection in
                try lease.create(on: connection)
                try capture.createLog(on: connection)
                try capture.install(on: tables.map { ($0, ["id"], []) }, connection: connection)
            }
            #expect(try fixture.colocationGroups(of: schema).count == 1)
            #expect(try ChangeCapture.capturedTables(inSchema: schema, on: connection).count == 2)
            let renewer = try InSchemaLease.Renewer(lease, connectionString: fixture.conninfo)

            try await fixture.withAppRole(on: schema) { role in
                let app = try Connection(fixture.conninfo, logger: quietLogger)
                try app.execute("SET ROLE \(id: role)")
                let logged = { try connection.transaction { try capture.pending(on: $0) } }

                try app.execute("UPDATE \(table: "recipe") SET \(id: "name") = \(id: "name") || '!' WHERE \(id: "id") <= 2", schema: schema)
                #expect(try logged() == 2)
                // Past the lease's first expiry, renewed meanwhile by the renewer's thread.
                let firstExpiry = try connection.scalar("SELECT expires_at::text FROM \(schema).\(TableNaming.citusShadow.name(InSchemaLease.table))", as: String.self)
                try waitUntil("the renewer moved the lease on") {
                    try connection.scalar("SELECT expires_at::text FROM \(schema).\(TableNaming.citusShadow.name(InSchemaLease.table))", as: String.self) != firstExpiry
                }
                try app.execute("DELETE FROM \(table: "recipe_ingredient") WHERE \(id: "recipe_id") = 3", schema: schema)
                let afterDelete = try logged()
                #expect(afterDelete > 2)
                #expect(renewer.lapsed == nil)

                let attacks: [SQL] = [
                    "INSERT INTO \(table: TableNaming.citusShadow.name(ChangeCapture.logTable)) VALUES ('recipe', '{1}', true)",
                    "DELETE FROM \(table: TableNaming.citusShadow.name(ChangeCapture.logTable))",
                    "UPDATE \(table: TableNaming.citusShadow.name(InSchemaLease.table)) SET expires_at = now() + interval '1 day'",
                    "DELETE FROM \(table: TableNaming.citusShadow.name(InSchemaLease.table))",
                    "DROP TRIGGER \(id: ChangeCapture.rowTrigger) ON \(table: "recipe")",
                ]
                for attack in attacks {
                    let refused = #expect(throws: PQError.self, "\(attack.text(schema: schema))") { try app.execute(attack, schema: schema) }
                    #expect(refused?.sqlState?.rawValue == "42501", "\(attack.text(schema: schema)): \(String(describing: refused))")
                }

                renewer.stop()
                try waitUntil("the lease expired") {
                    try connection.scalar("SELECT (expires_at < clock_timestamp())::int FROM \(schema).\(TableNaming.citusShadow.name(InSchemaLease.table))", as: Int.self) == 1
                }
                try app.execute("UPDATE \(table: "recipe") SET \(id: "name") = \(id: "name") || '?' WHERE \(id: "id") <= 5", schema: schema)
                #expect(try logged() == afterDelete, "an expired lease logs nothing")
                #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).recipe WHERE name LIKE '%?'", as: Int.self) == 5)
                #expect(try !lease.renew(on: connection), "a lapsed lease is not renewed")

                try connection.transaction { connection in
                    let captured: [SQL] = try ChangeCapture.capturedTables(inSchema: schema, on: connection).map { "\(quotedByServer: $0)" }
                    try ChangeCapture.removeTriggers(from: captured, on: connection)
                }
                #expect(try ChangeCapture.capturedTables(inSchema: schema, on: connection).isEmpty)
                #expect(try fixture.preparedTransactions() == 0)
            }
        }
    }
}

/// Polls `condition` every 50 ms until it holds, for at most 30 s (10× the slowest seen).
private func waitUntil(_ what: String, _ condition: () throws -> Bool) throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw WaitedTooLong(what: what) }
        Thread.sleep(forTimeInterval: 0.05)
    }
}

private struct WaitedTooLong: Error, CustomStringConvertible {
    let what: String
    var description: String { "waited 30 s for: \(what)" }
}
