import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing
import TypedSQL

/// On Citus, an app's row that breaks a constraint v2 makes, written during the online run's copy
/// or catch-up, fails the run as offline: the error names the step that makes the constraint
/// (by the model's name, where the server names the shadow's shard's) or the column it makes
/// required, the row and its SQLSTATE,
/// and the tenant stays at v1 with the app's row, nothing of the run left in its schema.
extension CitusTests {
    static let stockV1 = """
        entities:
          Item:
            attributes:
              code: { type: string }
              qty: { type: int32 }
        """
    static let stockV2 = stockV1
        .replacingOccurrences(of: "code: { type: string }", with: "code: { type: string, unique: true }")
        .replacingOccurrences(of: "qty: { type: int32 }", with: "qty: { type: int32, check: \"qty >= 0\" }")

    @Test(arguments: [
        (OnlinePhase.copying, "INSERT INTO S.item (code, qty) VALUES ('c1', 7)", "23505"),
        (.catchingUp, "UPDATE S.item SET qty = -3 WHERE code = 'c2'", "23514"),
    ])
    func onCitusAnAppsRowThatAConstraintOfTheStepRejectsFailsTheRunNamingTheStep(phase: OnlinePhase, write: String, sqlState: String) async throws {
        try await expectOnlineFailure(versions: [("v1", Self.stockV1), ("v2", Self.stockV2)], seed: "(code, qty) SELECT 'c' || i, i", phase: phase, write: write,
                                      naming: ["failed in step v1 → v2: inferred", sqlState,
                                               phase == .copying ? "row id 31 violates item_code_key" : "row id 2 violates item_qty_check"])
    }

    /// On Citus too, a NULL the app writes during the copy or catch-up into a column v2 makes
    /// required (23502 names no constraint; the shadow's validation names the column) fails the run
    /// naming the step that makes it required, the row and its SQLSTATE: `bin` made required, and
    /// the new required `shelf` the mapping fills from `note` (``RequiredColumnsFamily``).
    @Test(arguments: [
        (OnlinePhase.copying, "INSERT INTO S.item (code, bin, note) VALUES ('new', NULL, 'n')", "Item row id 31 violates NOT NULL on bin (table item)"),
        (.catchingUp, "UPDATE S.item SET note = NULL WHERE code = 'c2'", "Item row id 2 violates NOT NULL on shelf (table item)"),
    ])
    func onCitusANullTheAppWritesIntoAColumnTheStepMakesRequiredFailsTheRunNamingTheStep(phase: OnlinePhase, write: String, row: String) async throws {
        try await expectOnlineFailure(versions: RequiredColumnsFamily.versions, mappings: [("v1-to-v2", RequiredColumnsFamily.up)],
                                      seed: "(code, bin, note) SELECT 'c' || i, 'b' || i, 'n' || i", phase: phase, write: write,
                                      naming: ["failed in step v1 → v2: mapped", "23502", row])
    }

    /// A tenant of the family of `versions` (and `mappings`) at v1 with 30 items (`seed`: the
    /// column list and a SELECT over `i`, 1 … 30), migrated online to v2 while the app makes `write`
    /// (`S.` for its schema) at the first checkpoint of `phase`: the run fails with an error whose
    /// text holds each of `naming`, and the tenant stays at v1 with the app's row (31 items after
    /// an insert during the copy, 30 after an update during the catch-up), nothing of the run left.
    func expectOnlineFailure(versions: [(String, String)], mappings: [(String, String)] = [], seed: SQL, phase: OnlinePhase, write: String,
                             naming: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
        try await CitusFixture.with { fixture in
            try await Self.withFamily(fixture, "Stock", versions: versions, mappings: mappings) { migrator in
                let tenant = fixture.names(1, "stock")[0], schema = "tenant_" + tenant
                let connection = fixture.connection
                _ = try await migrator.createTenant(tenant, version: "v1")
                try connection.execute("INSERT INTO \(id: schema).item \(seed) FROM generate_series(1, 30) AS i", schema: "")
                let written = Locked(false), conninfo = fixture.conninfo
                var online = migrator
                online.settings.online.batchRows = 10
                online.settings.online.checkpoint = { checkpoint in
                    guard checkpoint.phase == phase, written.withLock({ done in defer { done = true }; return !done }) else { return }
                    _ = try Connection(conninfo).execute(unsafeSQL: write.replacingOccurrences(of: "S.", with: schema + "."))
                }
                let error = await #expect(throws: TenantMigrationError.self, sourceLocation: sourceLocation) {
                    try await online.migrate(tenant: tenant, MigrationRequest(.move, to: "v2", online: .on))
                }
                let text = error.map { "\($0)" } ?? ""
                #expect(written.value, "the app wrote during \(phase)", sourceLocation: sourceLocation)
                for part in naming {
                    #expect(text.contains(part), "\(part): \(text)", sourceLocation: sourceLocation)
                }
                #expect(try connection.execute("SELECT version FROM \(id: fixture.catalog.schema).tenants WHERE name = \(bind: .text(tenant))", schema: "")
                    .first?.decode(String.self, at: 0) == "v1", sourceLocation: sourceLocation)
                #expect(try connection.relations(of: schema, like: "\\_tm\\_%").filter { !$0.hasPrefix("_tm_archive") }.isEmpty, sourceLocation: sourceLocation)
                #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).item", as: Int.self) == (phase == .copying ? 31 : 30), sourceLocation: sourceLocation)
            }
        }
    }
}
