import EntityModel
import Foundation
import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 30: what the archive keeps does not depend on the server's settings or on which migrator
/// role runs a call, on generated families, through the whole product.
///
/// ``RoundTripPropertyTests`` runs its paths below ``TenantMigrator`` in one transaction, on a
/// session of its own settings. Here each generated family is written to a directory, a tenant is
/// made at a random version by ``TenantMigrator/createTenant(_:version:access:)`` and filled with
/// synthetic data, then each call of a random path (up and down, back to the start) is a
/// `migrate` or `rollback` of its own, committed, by a fresh migrator whose sessions open under
/// settings drawn for that call: `ALTER DATABASE … SET` and `ALTER ROLE … IN DATABASE … SET` of
/// TimeZone, DateStyle, IntervalStyle, extra_float_digits, bytea_output, search_path and
/// lc_monetary, as one of two migrator roles (the generator switches role between calls).
/// Every value must come back exactly (as text per column, with the schema and identities:
/// ``ExactState``), and through `jsonb`.
///
/// `ROUND_TRIP_SETTINGS_FAMILIES` runs more families (12 in CI), `ROUND_TRIP_PROPERTY_SEED`
/// another seed.
@Suite("Round trips on generated families under drawn settings and roles")
struct RoundTripSettingsPropertyTests {
    static let families = ProcessInfo.processInfo.environment["ROUND_TRIP_SETTINGS_FAMILIES"].flatMap(Int.init) ?? 12
    static let seed = RoundTripPropertyTests.seed

    /// Values each setting is drawn from (the migrator's own first: a call may also meet them).
    static let settings: [(name: String, values: [String])] = [
        ("TimeZone", ["'UTC'", "'Asia/Tokyo'", "'America/St_Johns'", "'Pacific/Chatham'"]),
        ("DateStyle", ["'ISO, MDY'", "'SQL, DMY'", "'German'", "'Postgres, YMD'"]),
        ("IntervalStyle", ["postgres", "sql_standard", "iso_8601", "postgres_verbose"]),
        ("extra_float_digits", ["3", "0", "-15", "1"]),
        ("bytea_output", ["hex", "escape"]),
        ("search_path", ["pg_catalog, pg_temp", "public, pg_catalog", "\"$user\", public"]),
        ("lc_monetary", ["'C'", "'POSIX'"]),
    ]

    struct Tally {
        var paths = 0, calls = 0, roleChanges = 0, values: Int64 = 0, refusals = 0
        var failures: [String] = []
    }

    @Test func everyValueComesBackUnderDrawnSettingsAndRoles() async throws {
        var tally = Tally()
        try await TestPostgres.withDatabaseURL { conninfo in
            let admin = try Connection(conninfo)
            let database = try admin.scalar("SELECT current_database()::text", as: String.self)
            let suffix = String(UInt32.random(in: .min ... .max), radix: 16)
            let roles = ["tm_settings_a_\(suffix)", "tm_settings_b_\(suffix)"]
            for role in roles { try admin.fixtureScript("CREATE ROLE \(role) LOGIN SUPERUSER") }
            defer {
                for role in roles {
                    _ = try? admin.fixtureScript("DROP OWNED BY \(role) CASCADE; DROP ROLE \(role)")
                }
            }
            for index in 0..<Self.families {
                do {
                    try await Self.check(family: index, conninfo: conninfo, database: database, roles: roles, admin: admin, tally: &tally)
                } catch {
                    tally.failures.append("family \(index): \(error)")
                }
            }
        }
        print("round-trip settings property: seed \(Self.seed), \(Self.families) families, \(tally.paths) paths (\(tally.calls) calls, "
            + "\(tally.roleChanges) changes of migrator role), \(tally.values) values compared as text with the schema and identities, "
            + "\(tally.refusals) expected refusals, \(tally.failures.count) failures")
        for failure in tally.failures.prefix(20) { Issue.record(Comment(rawValue: failure)) }
        #expect(tally.failures.isEmpty)
        #expect(tally.paths >= Self.families / 2 && tally.roleChanges > 0)
    }

    /// Writes family `index`'s generated versions and mappings as a family directory.
    static func write(_ generated: FamilyGenerator.Family, index: Int) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("settings-property-\(UUID().uuidString)/F\(index)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("Mappings"), withIntermediateDirectories: true)
        let names = generated.versions.indices.map { "v\($0 + 1)" }
        try "family: F\(index)\nversions: [\(names.joined(separator: ", "))]\n".write(to: directory.appendingPathComponent("family.yaml"), atomically: true, encoding: .utf8)
        for (name, yaml) in zip(names, generated.versions) {
            try yaml.write(to: directory.appendingPathComponent("\(name).yaml"), atomically: true, encoding: .utf8)
        }
        for mapping in generated.mappings {
            let (older, newer) = (min(mapping.source, mapping.destination) + 1, max(mapping.source, mapping.destination) + 1)
            let text = mapping.yaml.replacingOccurrences(of: "{from}", with: "v\(older)").replacingOccurrences(of: "{to}", with: "v\(newer)")
            try text.write(to: directory.appendingPathComponent("Mappings/v\(mapping.source + 1)-to-v\(mapping.destination + 1).yaml"), atomically: true, encoding: .utf8)
        }
        return directory
    }

    static func check(family index: Int, conninfo: String, database: String, roles: [String], admin: Connection, tally: inout Tally) async throws {
        var generator = FamilyGenerator(seed: seed &+ 0x5E77 &+ UInt64(index) &* 0x9E37_79B9)
        let generated = generator.family(named: "F\(index)")
        let directory = try write(generated, index: index)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let (family, mappings) = try RoundTripPropertyTests.load(generated, index: index)
        let planner = MigrationPlanner(family: family, mappings: mappings)
        var random = SeededGenerator(seed: seed &+ 0x5E77 &+ UInt64(index * 31))
        let count = family.versionNames.count
        let start = generated.randomStart(count, using: &random)
        var path = [start]
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            var next = path.last!
            while next == path.last! { next = Int.random(in: 0..<count, using: &random) }
            path.append(next)
        }
        if path.last! != start { path.append(start) }
        let calls = Array(zip(path, path.dropFirst()))
        let description = "family \(index) path \(path.map { "v\($0 + 1)" }.joined(separator: " → ")) [\(generated.changes.joined(separator: "; "))]"
        do {
            for (from, to) in calls where try RoundTripPropertyTests.plan(planner, generated, from: from, to: to) == nil { throw RoundTripPropertyTests.ExpectedRefusal() }
        } catch is RoundTripPropertyTests.ExpectedRefusal {
            tally.refusals += 1
            return
        }
        let version = family.versions[start]
        let tenant = "settings\(index)"
        var role = roles[0]
        let creator = try TenantMigrator(connectionString: connectionString(conninfo, user: role), familyDirectory: directory, policies: generated.registry)
        let schema = try await creator.createTenant(tenant, version: version.name).schema
        await creator.shutdown()
        try RoundTripData(version: version, seed: index, rowsPerEntity: 6).insert(inSchema: schema, on: admin)
        let snapshot = RoundTripSnapshot(version: version, schema: schema)
        try snapshot.take(on: admin)
        defer { _ = try? admin.fixtureScript("DROP TABLE IF EXISTS pg_temp.tm_round_trip_before") }
        let exact = try ExactState.read(schema, version: version, on: admin)
        tally.values += try admin.scalar("SELECT coalesce(sum((SELECT count(*) FROM jsonb_object_keys(item))), 0)::bigint FROM pg_temp.tm_round_trip_before", as: Int64.self)
        var declared: [DestructiveChange] = []
        for (from, to) in calls {
            // This call's settings, for the database and for the role it runs as.
            if Bool.random(using: &random) { role = roles[role == roles[0] ? 1 : 0]; tally.roleChanges += 1 }
            var drawn: [String] = []
            for (name, values) in Self.settings {
                let forDatabase = values[Int.random(in: 0..<values.count, using: &random)], forRole = values[Int.random(in: 0..<values.count, using: &random)]
                try admin.fixtureScript("ALTER DATABASE \(admin.quoteIdentifier(database)) SET \(name) = \(forDatabase)")
                try admin.fixtureScript("ALTER ROLE \(role) IN DATABASE \(admin.quoteIdentifier(database)) SET \(name) = \(forRole)")
                drawn.append("\(name) \(forDatabase)/\(forRole)")
            }
            let migrator = try TenantMigrator(connectionString: connectionString(conninfo, user: role), familyDirectory: directory, policies: generated.registry)
            let target = "v\(to + 1)"
            declared += RoundTripCheck.declaredLosses(try migrator.plan(from: "v\(from + 1)", to: target))
            let result = to > from ? try await migrator.migrate(tenant: tenant, to: target, allowDestructive: true)
                : try await migrator.rollback(tenant: tenant, to: target, allowDestructive: true)
            await migrator.shutdown()
            tally.calls += 1
            guard result.outcome == .migrated else {
                tally.failures.append("\(description): v\(from + 1) → \(target) as \(role) under \(drawn.joined(separator: ", ")): \(result.outcome) \(result.error ?? "")")
                return
            }
        }
        tally.paths += 1
        let differences = try snapshot.differences(on: admin).filter { difference in !declared.contains { $0.excuses(difference) } }
        if !differences.isEmpty {
            tally.failures.append("\(description): \(differences.count) values did not come back, e.g. \(differences.prefix(3).map(\.description))")
        }
        let excusedTables = Set(declared.map(\.table))
        let inexact = try ExactState.read(schema, version: version, on: admin).differences(from: exact)
            .filter { line in !excusedTables.contains { !$0.isEmpty && line.hasPrefix($0 + ": rows") } }
        if !inexact.isEmpty { tally.failures.append("\(description): not given back exactly: \(inexact.prefix(3))") }
    }
}
