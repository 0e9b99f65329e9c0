import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Online runs of generated families (``FamilyGenerator``: renames, new and dropped attributes,
/// entities split and merged, `distinct:` mappings, Swift policies, NULLs in every optional
/// column) end exactly as offline ones, there and back, while the app writes.
///
/// Each family gets two tenants made alike at a random version with the same generated rows:
/// `online` goes to another random version online (rows copied a few at a time), the app's seeded
/// inserts, updates and deletes (``TenantWorkload``) meeting the copy, the built shadow and the
/// first catch-up round; `twin` gets the same changes, then goes offline. Both come back to where
/// they started the same way, with new changes. After each leg the two must hold the same rows and
/// archive entries (``tenantContents(schema:version:naturalKeys:on:)``), the same values as text,
/// columns, constraints and identity positions (``ExactState``), and both verify clean.
///
/// `ONLINE_ROUND_TRIP_FAMILIES` runs more families (8 in CI), `ROUND_TRIP_PROPERTY_SEED` another
/// seed, `ROUND_TRIP_PROPERTY_FAMILY` one family of them, printing its versions (and with
/// `ONLINE_ROUND_TRIP_DEBUG`, the app's changes and both archives after each leg).
@Suite("Online round trips on generated families end as offline ones", .serialized)
struct OnlineRoundTripPropertyTests {
    static let families = ProcessInfo.processInfo.environment["ONLINE_ROUND_TRIP_FAMILIES"].flatMap(Int.init) ?? 8
    static let seed = RoundTripPropertyTests.seed &+ 7_001
    static let schemas = ["tenant_online", "tenant_twin"]
    /// The app's changes at each phase an online leg meets.
    static let changesPerPhase = 6

    struct Tally {
        var legs = 0, refusals = 0, shadowLegs = 0, changes = 0, caughtUp = 0
        var failures: [String] = []
    }

    @Test func onlineEndsAsOfflineAlongRandomPaths() async throws {
        var tally = Tally()
        let only = ProcessInfo.processInfo.environment["ROUND_TRIP_PROPERTY_FAMILY"].flatMap(Int.init)
        for index in 0..<Self.families where only == nil || only == index { try await Self.check(family: index, into: &tally) }
        print("online round-trip property: seed \(Self.seed), \(Self.families) families, \(tally.legs) legs online and offline "
            + "(\(tally.shadowLegs) through a shadow), \(tally.changes) app changes, \(tally.caughtUp) caught up, \(tally.refusals) refusals (planned or online), "
            + "\(tally.failures.count) failures")
        reportPropertyFailures(tally.failures, fileSuffix: ".online")
        #expect(only != nil || tally.legs >= Self.families, "most families must walk there and back: \(tally.refusals) refused")
        #expect(tally.shadowLegs >= tally.legs / 3, "legs must go through the shadow")
        #expect(tally.caughtUp > 0, "the app's changes must be caught up")
    }

    /// Generates family `index` and walks one random path there and back, online against offline.
    static func check(family index: Int, into tally: inout Tally) async throws {
        var generator = FamilyGenerator(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
        let generated = generator.family(named: "F\(index)")
        let (family, mappings) = try RoundTripPropertyTests.load(generated, index: index)
        let planner = MigrationPlanner(family: family, mappings: mappings)
        if ProcessInfo.processInfo.environment["ROUND_TRIP_PROPERTY_FAMILY"] != nil {
            print(generated.versions.enumerated().map { "--- v\($0 + 1)\n\($1)" }.joined() + generated.mappings.map { "--- mapping \($0.source) → \($0.destination)\n\($0.yaml)" }.joined(separator: "\n"))
        }
        var random = SeededGenerator(seed: seed &+ UInt64(index * 17))
        let names = family.versionNames
        let start = generated.randomStart(names.count, using: &random)
        var end = start
        while end == start { end = Int.random(in: 0..<names.count, using: &random) }
        let description = "family \(index) \(names[start]) → \(names[end]) → \(names[start]) [\(generated.changes.joined(separator: "; "))]"
        do {
            for (from, to) in [(start, end), (end, start)] {
                guard try RoundTripPropertyTests.plan(planner, generated, from: from, to: to) != nil else { tally.refusals += 1; return }
            }
        } catch {
            tally.failures.append("\(description): planning failed: \(error)")
            return
        }
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo)
            let migrator = TenantMigrator(connectionString: conninfo, family: family, mappings: mappings, policies: generated.registry,
                                          logger: .quiet("OnlineRoundTrip"))
            for schema in schemas {
                _ = try await migrator.createTenant(String(schema.dropFirst("tenant_".count)), version: names[start])
                try RoundTripData(version: family.versions[start], seed: index, rowsPerEntity: 6).insert(inSchema: schema, on: connection)
            }
            for (leg, (from, to)) in [(start, end), (end, start)].enumerated() {
                let what = "\(description), leg \(names[from]) → \(names[to])"
                do {
                    let progress = try await Self.leg(migrator, conninfo, from: family.versions[from], to: names[to],
                                                      appSeed: seed &+ UInt64(index * 2 + leg), into: &tally)
                    tally.legs += 1
                    if progress?.mode == "shadow" { tally.shadowLegs += 1 }
                    tally.caughtUp += progress?.changesCaughtUp ?? 0
                    if ProcessInfo.processInfo.environment["ONLINE_ROUND_TRIP_DEBUG"] != nil {
                        for schema in schemas {
                            let rows = try connection.execute(unsafeSQL: "SELECT step_from||'>'||step_to||' '||table_name||' '||column_name||' '||row_id||' '||coalesce(row_key,'')||' '||coalesce(value,'∅')||' left='||coalesce(left_value,'∅')||' sup='||superseded FROM \(schema)._tm_archive ORDER BY 1").map { try $0.decode(String.self, at: 0) }
                            print("DEBUG leg \(leg) \(schema):\n  " + rows.joined(separator: "\n  "))
                        }
                    }
                    let differences = try Self.differences(family.versions[to], on: connection)
                    if !differences.isEmpty, ProcessInfo.processInfo.environment["ONLINE_ROUND_TRIP_DEBUG"] != nil {
                        for schema in schemas {
                            let contents = try tenantContents(schema: schema, version: family.versions[to], on: connection)
                            print("DEBUG contents \(schema):\n" + contents.sorted { $0.key < $1.key }.map { "  \($0.key):\n    " + $0.value.joined(separator: "\n    ") }.joined(separator: "\n"))
                        }
                    }
                    if !differences.isEmpty {
                        tally.failures.append("\(what) (\(progress?.mode ?? "?")): online and offline differ: \(differences.prefix(4))")
                        return
                    }
                    for report in try await migrator.verify(tenants: ["online", "twin"]) where !report.isClean {
                        tally.failures.append("\(what): \(report.tenant) does not verify: \(report.differences.prefix(3)) \(report.foreignObjects.prefix(3))")
                    }
                } catch is OnlineRefusal {
                    // (It touched nothing: the online run says what it cannot do yet, before it starts.)
                    tally.refusals += 1
                    return
                } catch {
                    tally.failures.append("\(what): \(error)")
                    return
                }
            }
        }
    }

    /// Moves `online` to `target` online while the app changes it at each phase, then `twin` the
    /// same changes and offline; returns the online run's progress.
    static func leg(_ migrator: TenantMigrator, _ conninfo: String, from source: ModelVersion, to target: String, appSeed: UInt64,
                    into tally: inout Tally) async throws -> OnlineProgress? {
        let app = BackgroundWorkload(TenantWorkload(version: source, schema: schemas[0], seed: appSeed, firstID: 1_000_000 + Int64(appSeed % 1_000) * 1_000),
                                     conninfo: conninfo)
        let seen = Locked<Set<OnlinePhase>>([])
        var online = migrator
        online.settings.online.batchRows = 2
        online.settings.online.cutoverChanges = 1_000_000
        online.settings.online.checkpoint = { checkpoint in
            guard [.copying, .built, .catchingUp].contains(checkpoint.phase), seen.withLock({ $0.insert(checkpoint.phase).inserted }) else { return }
            try app.drive(Self.changesPerPhase)
        }
        let request = MigrationRequest(.move, to: target, allowDestructive: true, online: .on)
        let result = try await online.migrate(tenant: "online", request)
        guard result.outcome == .migrated else { throw RoundTripError("online: \(result.outcome.rawValue): \(result.error ?? "")") }
        let workload = try app.result()
        tally.changes += workload.applied.count
        if ProcessInfo.processInfo.environment["ONLINE_ROUND_TRIP_DEBUG"] != nil {
            print("DEBUG \(result.online.map { "\($0.mode): \($0.reason), \($0.rounds) rounds" } ?? "") statements:\n  " + workload.applied.joined(separator: "\n  "))
        }
        let connection = try Connection(conninfo)
        try workload.replay(inSchema: schemas[1], on: connection)
        let offline = try await migrator.migrate(tenant: "twin", MigrationRequest(.move, to: target, allowDestructive: true))
        guard offline.outcome == .migrated else { throw RoundTripError("offline: \(offline.outcome.rawValue): \(offline.error ?? "")") }
        return result.online
    }

    /// How the online tenant differs from its twin at `version`: rows and archive entries, values
    /// as text, columns, constraints and identity positions.
    static func differences(_ version: ModelVersion, on connection: Connection) throws -> [String] {
        let contents = try schemas.map { try tenantContents(schema: $0, version: version, on: connection) }
        var found: [String] = []
        for table in Set(contents[0].keys).union(contents[1].keys).sorted() where contents[0][table] != contents[1][table] {
            let (online, offline) = (contents[0][table] ?? [], contents[1][table] ?? [])
            found.append("\(table): online has \(online.filter { !offline.contains($0) }.prefix(2)), offline \(offline.filter { !online.contains($0) }.prefix(2))")
        }
        // (Each in its own schema: the constraints name it where they reference a table.)
        let exact = try schemas.map { schema in
            var state = try ExactState.read(schema, version: version, on: connection)
            state.constraints = state.constraints.map { $0.replacingOccurrences(of: " \(schema).", with: " tenant.") }
            return state
        }
        // An identity online may stand past ids the app wrote above it, where offline leaves it
        // (docs/Online.md, "Enum types and sequences"); never behind offline's. ExactState says so.
        found += exact[0].differences(from: exact[1]).map { "online against offline: \($0)" }
        return found
    }
}
