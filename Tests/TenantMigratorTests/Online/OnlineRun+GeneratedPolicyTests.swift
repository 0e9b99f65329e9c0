import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing
import TypedSQL

/// A row-local Swift policy generated for each fixture family's step: it rewrites a text attribute
/// of an entity that the step keeps in its table (reversed, archiving the old value) for every
/// row, as the first step of the path. Online, under generated changes on every table at the copy,
/// after the build and during catch-up (so catch-up runs the policy again for the rows the app
/// changed), each ends exactly where an offline migration of the final data ends.
@Suite("Online runs of a generated row-local policy", .serialized)
struct OnlineRunGeneratedPolicyTests {
    /// Where the generated policy applies: `entity.attribute` in the step `from` → `next`, the first
    /// of the path `from` → `to`.
    struct Case: Sendable, CustomTestStringConvertible {
        let family: String
        let from: String
        let to: String
        let next: String
        let entity: String
        let attribute: String

        var testDescription: String { "\(family) \(from) → \(to), \(entity).\(attribute) in \(from) → \(next)" }
    }

    /// Rewrites `entity.attribute` of each source row in place, reversed (a bijection: uniqueness
    /// and length hold), archiving the old value; reads nothing but its row.
    struct ReversedText: MigrationPolicy {
        static let name = "GeneratedReversedText"
        let entity: String
        let attribute: String

        var transforms: [String] { [attribute] }

        func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
            let value = try source.string(attribute)
            try context.archive(entity: entity, id: source.id, attribute: attribute, value: value)
            try context.update(entity, id: source.id, [attribute: value.map { String($0.reversed()) }])
            context.associate(source: source.id, destination: source.id)
        }
    }

    static let fixtures = PackagePaths.root.appendingPathComponent("Tests/MigrationEngineTests/Fixtures")

    /// Each case of the families' online test whose first step has no mapping file of its own and
    /// keeps, in the same table, an entity with a plain text attribute (no check, not unique, not
    /// renamed): the policy's mapping is then the step's only one.
    static let cases: [Case] = OnlineRunFamiliesTests.cases.compactMap { name, from, to in
        guard let family = try? ModelFamily.load(from: fixtures.appendingPathComponent(name)),
              let start = family.index(ofVersion: from), let end = family.index(ofVersion: to), start != end else { return nil }
        let next = family.versions[start + (end > start ? 1 : -1)].name
        let mappingFile = fixtures.appendingPathComponent("\(name)/Mappings/\(from)-to-\(next).yaml")
        guard !FileManager.default.fileExists(atPath: mappingFile.path),
              let source = family.version(named: from), let destination = family.version(named: next) else { return nil }
        for entity in source.entities where entity.parent == nil && !entity.isAbstract && entity.checks.isEmpty {
            guard let kept = destination.entity(named: entity.name), kept.tableName == entity.tableName, kept.parent == nil,
                  kept.checks.isEmpty else { continue }
            let plain = { (attribute: Attribute) in
                attribute.type == .string && attribute.check == nil && !attribute.isUnique && attribute.columnType == nil
            }
            // Text along the whole path (a later step that turns it into a number would refuse the reversed text).
            let path = family.versions[min(start, end)...max(start, end)]
            let staysText = { (attribute: Attribute) in
                path.allSatisfy { $0.entity(named: entity.name)?.attribute(named: attribute.name).map(plain) ?? true }
            }
            for attribute in entity.attributes where plain(attribute) && staysText(attribute) {
                guard let after = kept.attribute(named: attribute.name), plain(after), after.columnName == attribute.columnName,
                      after.renamingIdentifier == nil, !kept.uniques.contains(where: { $0.contains(attribute.name) }),
                      !entity.uniques.contains(where: { $0.contains(attribute.name) }) else { continue }
                return Case(family: name, from: from, to: to, next: next, entity: entity.name, attribute: attribute.name)
            }
        }
        return nil
    }

    /// A copy of the case's family with the generated mapping file, the registry with its policy,
    /// and the directory to remove afterwards.
    static func generatedFamily(for test: Case) throws -> (directory: URL, policies: PolicyRegistry, copy: URL) {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("generated-policy-\(UUID().uuidString)")
        let directory = copy.appendingPathComponent(test.family)
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent(test.family), to: directory)
        let mappings = directory.appendingPathComponent("Mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        try """
            source: \(test.from)
            destination: \(test.next)
            entityMappings:
              - name: Generated\(test.entity)
                source: \(test.entity)
                destination: \(test.entity)
                policy: \(ReversedText.name)

            """.write(to: mappings.appendingPathComponent("\(test.from)-to-\(test.next).yaml"), atomically: true, encoding: .utf8)
        var policies = PolicyRegistry()
        let (entity, attribute) = (test.entity, test.attribute)
        policies.register(ReversedText.name) { ReversedText(entity: entity, attribute: attribute) }
        return (directory, policies, copy)
    }

    /// `pg_terminate_backend` of the runner's connection after a catch-up round (which ran the
    /// policy again for the rows the app changed) or while it holds the cutover's lock: the tenant
    /// stays at its old version with its rows as the app left them and nothing of the run left,
    /// and the rerun ends where an offline migration of a twin given the same data ends.
    @Test(arguments: cases.flatMap { test in [OnlinePhase.catchingUp, .cutoverLocked].map { (test, $0) } })
    func aTerminatedRunOfTheGeneratedPolicyLeavesTheOldVersionAndTheRerunCompletes(_ test: Case, phase: OnlinePhase) async throws {
        let (directory, policies, copy) = try Self.generatedFamily(for: test)
        defer { try? FileManager.default.removeItem(at: copy) }
        try await TestPostgres.withDatabaseURL { conninfo in
            let family = try ModelFamily.load(from: directory)
            let source = try #require(family.version(named: test.from)), destination = try #require(family.version(named: test.to))
            let base = try TenantMigrator(connectionString: conninfo, familyDirectory: directory, policies: policies, logger: .quiet("GeneratedPolicyCrash"))
            let connection = try Connection(conninfo)
            for name in ["online", "twin"] { _ = try await base.createTenant(name, version: test.from) }
            var filling = TenantWorkload(version: source, schema: "tenant_online", seed: 33, firstID: 1)
            try filling.run(200, on: connection)
            try filling.replay(inSchema: "tenant_twin", on: connection)

            // The app changes rows once the shadow is built, so the first catch-up round runs the
            // policy again; a plan that catches nothing up (writes-wait from its first step) is
            // stopped once built instead.
            let catchesUp = try !OnlinePlan(base.plan(from: test.from, to: test.to)).caughtUp.isEmpty
            let stopAt = phase == .catchingUp && !catchesUp ? OnlinePhase.built : phase
            let app = BackgroundWorkload(TenantWorkload(version: source, schema: "tenant_online", seed: 34), conninfo: conninfo)
            var migrator = base
            migrator.settings.online.batchRows = 20
            let terminated = Locked(false)
            migrator.settings.online.checkpoint = { checkpoint in
                if checkpoint.phase == .built { try app.drive(15) }
                guard checkpoint.phase == stopAt, terminated.withLock({ done in defer { done = true }; return !done }) else { return }
                _ = try Connection(conninfo).execute("SELECT pg_terminate_backend($1)", [checkpoint.backendPID])
            }
            let request = MigrationRequest(.move, to: test.to, allowDestructive: true, online: .on)
            await #expect(throws: (any Error).self) { _ = try await migrator.migrate(tenant: "online", request) }
            #expect(terminated.value)
            #expect(try connection.tenantVersions()["online"]?.version == test.from)
            let changes = try app.result()
            #expect(changes.applied.count > 5, "\(changes.applied.count) changes kept, \(changes.refused) refused")
            try changes.replay(inSchema: "tenant_twin", on: connection)
            expectSameContents(try tenantContents(schema: "tenant_online", version: source, on: connection),
                               try tenantContents(schema: "tenant_twin", version: source, on: connection), "\(test.testDescription), stopped: ")

            let again = try await base.migrate(tenant: "online", request)
            #expect(again.outcome == .migrated)
            _ = try await base.migrate(tenant: "twin", MigrationRequest(.move, to: test.to, allowDestructive: true))
            expectSameContents(try tenantContents(schema: "tenant_online", version: destination, on: connection),
                               try tenantContents(schema: "tenant_twin", version: destination, on: connection), "\(test.testDescription), rerun: ")
            let left: SQL = "SELECT (SELECT pg_catalog.count(*) FROM pg_catalog.pg_namespace WHERE nspname ~ '^_tm_(online|delta)_')::int "
                + "+ (SELECT pg_catalog.count(*) FROM pg_catalog.pg_trigger WHERE tgname ~ '^_tm_online_')::int"
            #expect(try connection.execute(left, schema: "tenant_online").first?.decode(Int.self, at: 0) == 0)
        }
    }

    @Test func theGeneratedPolicyAppliesToMostFamilies() {
        #expect(Self.cases.count >= 12, "\(Self.cases.map(\.testDescription))")
    }

    @Test(arguments: cases)
    func anOnlineRunOfTheGeneratedPolicyEndsAsAnOfflineOne(_ test: Case) async throws {
        let (directory, policies, copy) = try Self.generatedFamily(for: test)
        defer { try? FileManager.default.removeItem(at: copy) }
        let column = try #require(try ModelFamily.load(from: directory).version(named: test.from)?.entity(named: test.entity)?.attribute(named: test.attribute)).columnName
        try await expectOnlineEndsAsOffline(
            directory: directory, from: test.from, to: test.to, policies: policies, label: test.family + " (generated policy)", bothMustSucceed: true
        ) { connection, result in
            // In a shadow, catch-up ran the step (the policy with it) again for the rows the app changed.
            let online = try #require(result.online)
            print("generated policy, \(test.testDescription): \(online.mode), \(online.rowsMigratedAgain) rows migrated again")
            if online.mode == "shadow" { #expect(online.rowsMigratedAgain > 0) }
            // The policy ran: it archived the value of every row it rewrote, online as offline.
            let archived: SQL = "SELECT pg_catalog.count(*)::int FROM \(table: "_tm_archive") WHERE step_from = \(bind: .text(test.from)) "
                + "AND step_to = \(bind: .text(test.next)) AND column_name = \(bind: .text(column))"
            for schema in ["tenant_online", "tenant_twin"] {
                let count = try connection.execute(archived, schema: schema).first?.decode(Int.self, at: 0) ?? 0
                #expect(count > 0, "\(schema): no archived \(test.entity).\(test.attribute)")
            }
        }
    }
}
