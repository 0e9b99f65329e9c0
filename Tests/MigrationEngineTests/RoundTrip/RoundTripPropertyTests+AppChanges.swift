import EntityModel
import Foundation
import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import Testing
import TypedSQL

/// Issue 30: the app changes a tenant between the calls of a round trip, and the rollback follows
/// the documented rules (docs/Archive.md): the app's change wins, the archived value it superseded
/// is kept (and listed superseded), and everything the app never touched comes back exactly.
///
/// For each of ``appChangeFamilies`` generated families, a tenant of a random version S is filled
/// with synthetic data and walks two cycles: the app changes it at S (``AppWorkload``, as a role
/// that owns nothing), a call up to a random later version U (one call or pair by pair), the app
/// changes it again at U (inserts with NULLs, updates, updates of what a mapped way back derives
/// from, deletes, relinks), a call down to S. After each way down, every value is compared as text
/// with what ``AppChangeOracle`` works out from the rules and the generator's own record of its
/// mapped steps (not from the engine), the schema and identities with how they were, and each value
/// whose archived entry the app's change superseded must be in the archive, marked superseded.
@Suite("Round trips on generated families with app changes")
struct RoundTripAppChangeTests {
    /// 30 in CI; `ROUND_TRIP_PROPERTY_APP_FAMILIES` runs more (seed: `ROUND_TRIP_PROPERTY_SEED`).
    static let families = ProcessInfo.processInfo.environment["ROUND_TRIP_PROPERTY_APP_FAMILIES"].flatMap(Int.init) ?? 30
    static let cycles = 2
    /// Whether the families have required to-ones (`ROUND_TRIP_PROPERTY_APP_REQUIRED=0`: not).
    static let requiredToOnes = ProcessInfo.processInfo.environment["ROUND_TRIP_PROPERTY_APP_REQUIRED"] != "0"

    struct Tally {
        var families = 0, trips = 0, cycles = 0, refusals = 0, values: Int64 = 0
        var inserts = 0, updates = 0, deletes = 0, relinks = 0, nulls = 0, refusedByPostgres = 0
        /// Families with required to-ones, and rows deleted before the row they named by one.
        var requiredFamilies = 0, dependentDeletes = 0
        /// Families with a `distinct:` mapping, and app changes to what a way back derives from
        /// another row (the row a link names, or the link).
        var distinctFamilies = 0, otherRowUpdates = 0
        /// Families with a generated Swift policy (``GeneratedInPlacePolicy``).
        var policyFamilies = 0
        var superseded = 0, provedColumns = 0, withheldProofs = 0
        /// `distinct:` keys the app renamed below their pair (every row of a value, or one of
        /// several), deleted rows whose key a new row took, and ways up whose made rows were
        /// checked against them (``AppChangeOracle/renamedKeyViolations(_:on:)``).
        var keyRenames = 0, keyReuses = 0, keyChecks = 0
        var failures: [String] = []

        mutating func add(_ other: Tally) {
            families += other.families; trips += other.trips; cycles += other.cycles; refusals += other.refusals; values += other.values
            inserts += other.inserts; updates += other.updates; deletes += other.deletes; relinks += other.relinks; nulls += other.nulls
            refusedByPostgres += other.refusedByPostgres; superseded += other.superseded
            requiredFamilies += other.requiredFamilies; dependentDeletes += other.dependentDeletes
            distinctFamilies += other.distinctFamilies; otherRowUpdates += other.otherRowUpdates; policyFamilies += other.policyFamilies
            provedColumns += other.provedColumns; withheldProofs += other.withheldProofs
            keyRenames += other.keyRenames; keyReuses += other.keyReuses; keyChecks += other.keyChecks
            failures += other.failures
        }
    }

    @Test func appChangesWinAndEverythingElseComesBack() async throws {
        let (tally, seconds) = try await runPropertyCheck { Self.checkAll($0) }
        print("round-trip property with app changes: seed \(RoundTripPropertyTests.seed), \(tally.families) families, \(tally.trips) trips, "
            + "\(tally.cycles) cycles (S → U, app, U → S), app: \(tally.inserts) inserts, \(tally.updates) updates, \(tally.deletes) deletes, "
            + "\(tally.relinks) relinks, \(tally.nulls) NULLs written, \(tally.refusedByPostgres) refused by constraints, "
            + "\(tally.otherRowUpdates) to what a way back derives from another row (\(tally.distinctFamilies) families with distinct: mappings, \(tally.policyFamilies) with a Swift policy), "
            + "\(tally.dependentDeletes) rows deleted first as they named a deleted row by a required to-one (\(tally.requiredFamilies) families with required to-ones); "
            + "\(tally.keyRenames) distinct: keys renamed below and \(tally.keyReuses) reused by a new row, \(tally.keyChecks) ways up checked for them; "
            + "\(tally.superseded) archived values superseded as expected, \(tally.provedColumns) columns proved and \(tally.withheldProofs) proofs withheld; "
            + "\(tally.values) values compared as text, \(tally.refusals) expected refusals, \(tally.failures.count) failures, \(Int(seconds)) s")
        reportPropertyFailures(tally.failures, fileSuffix: ".app")
        #expect(tally.families == Self.families)
        #expect(tally.cycles > Self.families, "most families must walk their cycles: \(tally.refusals) refused")
        #expect(tally.inserts > Self.families / 2 && tally.updates > Self.families && tally.deletes > Self.families / 4 && tally.relinks > Self.families / 4,
                "the app must insert, update, delete and relink")
        #expect(tally.superseded > Self.families / 8, "app changes must supersede archived values")
        #expect(tally.distinctFamilies > 0 && tally.policyFamilies > 0, "families must have distinct: mappings and Swift policies")
        #expect(!Self.requiredToOnes || tally.requiredFamilies > Self.families / 10, "families must have required to-ones")
        #expect(tally.keyRenames > 0 && tally.keyReuses > 0 && tally.keyChecks > 0, "the app must rename and reuse distinct: keys below their pair")
    }

    static func checkAll(_ conninfo: String) -> (Tally, [String]) {
        let results = Locked<[Tally]>([])
        let errors = Locked<[String]>([])
        let workers = RoundTripPropertyTests.connections
        let only = ProcessInfo.processInfo.environment["ROUND_TRIP_PROPERTY_FAMILY"].flatMap(Int.init)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            do {
                let connection = try Connection(conninfo)
                var tally = Tally()
                for index in stride(from: worker, to: Self.families, by: workers) where only == nil || only == index {
                    tally.add(try Self.check(family: index, worker: worker, on: connection))
                }
                results.withLock { $0.append(tally) }
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        var sum = Tally()
        for tally in results.value { sum.add(tally) }
        return (sum, errors.value)
    }

    static func check(family index: Int, worker: Int, on connection: Connection) throws -> Tally {
        let seed = RoundTripPropertyTests.seed &+ 0xA77 &+ UInt64(index) &* 0x9E37_79B9
        // (With required to-ones: the app deletes the rows that name a row by one before the row,
        // AppChangeOracle.dependents(in:on:).)
        var generator = FamilyGenerator(seed: seed, mappedPercent: 60, requiredToOnes: Self.requiredToOnes, requiredPercent: 90)
        // (distinct: mappings, whose ways back derive from other rows, in about a third of the families.)
        generator.distinctPercent = 40
        let generated = generator.family(named: "F\(index)")
        var tally = Tally(families: 1)
        tally.requiredFamilies = generated.changes.contains { $0.hasPrefix("required to-one") } ? 1 : 0
        tally.distinctFamilies = generated.distinctVersion != nil ? 1 : 0
        tally.policyFamilies = generated.policies.isEmpty ? 0 : 1
        let family: ModelFamily, mappings: [MappingModel]
        do {
            (family, mappings) = try RoundTripPropertyTests.load(generated, index: index)
        } catch {
            tally.failures.append("family \(index) does not load: \(error)")
            return tally
        }
        let planner = MigrationPlanner(family: family, mappings: mappings)
        let names = family.versionNames
        var random = SeededGenerator(seed: seed &+ 17)
        var lower = generated.laterStartsAllowed ? Int.random(in: 0..<(names.count - 1), using: &random) : 0
        var upper = Int.random(in: (lower + 1)..<names.count, using: &random)
        // Mostly across a mapped step, where the archive and the app's changes meet.
        // (A distinct: mapping's first, where there is one: its way back derives from other rows.)
        let distinct = generated.mappedChanges.filter { if case .distinct = $0.kind { true } else { false } }
        if let mapped = (distinct.isEmpty ? generated.mappedChanges : distinct).randomElement(using: &random)?.version, Int.random(in: 0..<10, using: &random) < 7 {
            lower = generated.laterStartsAllowed ? Int.random(in: 0..<mapped, using: &random) : 0
            upper = Int.random(in: mapped..<names.count, using: &random)
        }
        let description = "family \(index) v\(lower + 1) ⇄ v\(upper + 1) [\(generated.changes.joined(separator: "; "))]"
        // One call each way, or pair by pair.
        func calls(_ from: Int, _ to: Int, stepwise: Bool) throws -> [MigrationPlan] {
            let stops = stepwise ? Array(stride(from: from, through: to, by: from < to ? 1 : -1)) : [from, to]
            return try zip(stops, stops.dropFirst()).map {
                guard let plan = try RoundTripPropertyTests.plan(planner, generated, from: $0, to: $1) else { throw RoundTripPropertyTests.ExpectedRefusal() }
                return plan
            }
        }
        var plans: [[MigrationPlan]] = []
        do {
            for _ in 0..<Self.cycles {
                plans.append(try calls(lower, upper, stepwise: Bool.random(using: &random)))
                plans.append(try calls(upper, lower, stepwise: Bool.random(using: &random)))
            }
        } catch is RoundTripPropertyTests.ExpectedRefusal {
            tally.refusals += 1
            return tally
        } catch {
            tally.failures.append("\(description): planning failed: \(error)")
            return tally
        }
        tally.trips = 1
        let versions = family.versions
        do {
            try connection.transaction { connection in
                throw try walk(plans, lower: lower, upper: upper, generated: generated, versions: versions, seed: seed, worker: worker,
                               description: description, on: connection)
            }
        } catch let outcome as Tally {
            tally.add(outcome)
        } catch {
            tally.failures.append("\(description): \(error)")
        }
        return tally
    }

    /// Runs the cycles in a transaction that is rolled back (the outcome is thrown).
    private static func walk(_ plans: [[MigrationPlan]], lower: Int, upper: Int, generated: FamilyGenerator.Family, versions: [ModelVersion],
                             seed: UInt64, worker: Int, description: String, on connection: Connection) throws -> Tally {
        var tally = Tally()
        let schemas = AppChangeOracle.Schemas(tenant: "tenant_app", expected: "expected", upLeft: "up_left")
        let role = "tm_property_app_\(worker)_\(UInt32.random(in: 0...UInt32.max))"
        try connection.execute("CREATE ROLE \(id: role) NOLOGIN", schema: schemas.tenant)
        try connection.execute("CREATE SCHEMA \(SQL.schema)", schema: schemas.tenant)
        let version = versions[lower]
        for statement in version.relationalSchema().createStatements(inSchema: schemas.tenant, quoting: connection) { try connection.execute(unsafeSQL: statement) }
        try RoundTripData(version: version, seed: Int(truncatingIfNeeded: seed % 100_000), rowsPerEntity: 6).insert(inSchema: schemas.tenant, on: connection)
        let before = try ExactState.read(schemas.tenant, version: version, on: connection)
        let down = AppChangeOracle(family: generated, lower: lower, upper: upper, versions: versions)
        let same = AppChangeOracle(family: generated, lower: lower, upper: lower, versions: versions)
        var workload = AppWorkload(seed: seed &+ 99)
        // (Keys renamed below a distinct: pair, and the rows the next way up makes from them.)
        let keys = down.extractedKeys
        for cycle in 0..<Self.cycles {
            try workload.run(keys.isEmpty ? 3 : 6, on: same, schema: schemas.tenant, role: role, undeletable: [:], keys: keys, on: connection)
            if cycle > 0, !keys.isEmpty { try down.snapshotKeys("up", schemas.tenant, on: connection) }
            let undeletable = try down.undeletable(in: schemas.tenant, on: connection)
            let dependents = try down.dependents(in: schemas.tenant, on: connection)
            for schema in [schemas.expected, schemas.upLeft] { try connection.execute("DROP SCHEMA IF EXISTS \(id: schema) CASCADE", schema: schemas.tenant) }
            try AppChangeOracle.copy(schemas.tenant, tables: down.lower.tables, into: schemas.expected, on: connection)
            for plan in plans[2 * cycle] { try run(plan, schemas.tenant, &tally, on: connection) }
            if cycle > 0, !keys.isEmpty {
                tally.keyChecks += 1
                let violations = try down.renamedKeyViolations(schemas.tenant, on: connection)
                if !violations.isEmpty {
                    tally.failures.append("\(description), cycle \(cycle + 1), way up: not as the rules say: \(violations.prefix(3))")
                    break
                }
            }
            try AppChangeOracle.copy(schemas.tenant, tables: down.upLeftTables, into: schemas.upLeft, on: connection)
            try workload.run(5, on: down, schema: schemas.tenant, role: role, undeletable: undeletable, dependents: dependents, on: connection)
            let superseded = try down.supersededValues(schemas, on: connection)
            try down.apply(schemas, on: connection)
            if !keys.isEmpty { try down.snapshotBeforeDown(schemas.tenant, on: connection) }
            for plan in plans[2 * cycle + 1] { try run(plan, schemas.tenant, &tally, on: connection) }
            if !keys.isEmpty { try down.snapshotKeys("down", schemas.tenant, on: connection) }
            tally.cycles += 1
            // Every value as the rules say, the schema and identities as they were.
            let expected = try ExactState.read(schemas.expected, version: version, on: connection)
            var want = before
            want.rows = expected.rows
            let found = try ExactState.read(schemas.tenant, version: version, on: connection).differences(from: want)
            tally.values += Int64(version.relationalSchema().tables.reduce(0) { $0 + (expected.rows[$1.name]?.count ?? 0) * $1.columns.count })
            if !found.isEmpty {
                tally.failures.append("\(description), cycle \(cycle + 1): not as the rules say: \(found.prefix(3))")
                break
            }
            let archived = try connection.execute("SELECT to_regclass($1) IS NOT NULL", ["\(schemas.tenant)._tm_archive"]).first!.decode(Bool.self, at: 0)
            for value in superseded {
                let parts = value.split(separator: " ").map(String.init)
                let kept = archived ? try connection.execute("""
                    SELECT count(*) FROM \(table: "_tm_archive") WHERE superseded AND table_name = ANY (\(bind: .text("{" + down.names(ofTable: parts[0]).sorted().joined(separator: ",") + "}"))::text[])
                    AND column_name = ANY (\(bind: .text("{" + down.names(of: parts[1], in: parts[0]).sorted().joined(separator: ",") + "}"))::text[]) AND row_id = \(bind: .integer(Int64(parts[2])!))
                    """, schema: schemas.tenant).first!.decode(Int64.self, at: 0) : 0
                if kept == 0 { tally.failures.append("\(description), cycle \(cycle + 1): the archived value of \(value) the app superseded is not kept") }
            }
            tally.superseded += superseded.count
        }
        tally.inserts = workload.inserts; tally.updates = workload.updates; tally.deletes = workload.deletes
        tally.relinks = workload.relinks; tally.nulls = workload.nulls; tally.refusedByPostgres = workload.refused
        tally.dependentDeletes = workload.dependentDeletes; tally.otherRowUpdates = workload.otherRowUpdates
        tally.keyRenames = workload.keyRenames; tally.keyReuses = workload.keyReuses
        return tally
    }

    private static func run(_ plan: MigrationPlan, _ schema: String, _ tally: inout Tally, on connection: Connection) throws {
        do {
            let statistics = try plan.run(inSchema: schema, on: connection, allowDestructive: true, archives: true)
            tally.provedColumns += statistics.provedColumns
            tally.withheldProofs += statistics.withheldProofs
        } catch {
            throw RoundTripError("\(plan.path): \(error)")
        }
    }
}

extension RoundTripAppChangeTests.Tally: Error {}
