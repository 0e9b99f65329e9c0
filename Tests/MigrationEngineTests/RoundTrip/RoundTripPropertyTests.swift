import EntityModel
import Foundation
import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import Testing

/// Issue 22, item 5: a rollback gives back everything, along every path, on generated families.
///
/// For each of ``families`` random families (``FamilyGenerator``: 3 to 5 versions, attributes of
/// every type, to-one, to-many and many-to-many relationships, a hierarchy whose sub-entities are
/// added, removed and moved, inferred and mapped steps), the first version's schema is filled with
/// synthetic data (``RoundTripData``: NULLs in every optional attribute), then a random sequence of
/// calls up and down (some down calls without archiving) ends at the first version, and every value
/// must be as it was unless a step of the trip declared it lost. A pair that cannot be planned is
/// an expected refusal only when the model says why (a required attribute without a default, a
/// narrowing that is not declared); any other planning error fails the test.
///
/// Everything runs on one database, one scratch schema per path, each in a transaction that is
/// rolled back; families are spread over a few connections.
@Suite("Round trips on generated families")
struct RoundTripPropertyTests {
    /// 22 in CI; `ROUND_TRIP_PROPERTY_SEED` runs another (`ROUND_TRIP_PROPERTY_FAMILY` one family of
    /// it, printing its versions; `ROUND_TRIP_PROPERTY_FAILURES` a file for every failure).
    static let seed: UInt64 = ProcessInfo.processInfo.environment["ROUND_TRIP_PROPERTY_SEED"].flatMap(UInt64.init) ?? 22
    static let families = 300
    static let pathsPerFamily = 2
    static let connections = 3

    /// What the model says when a pair cannot be inferred for a reason of its own.
    static let expectedRefusals = ["but has no default value", "which narrows it"]

    struct Tally {
        var families = 0, paths = 0, calls = 0, fusedSteps = 0, mappedSteps = 0, provedSteps = 0, values: Int64 = 0, refusals = 0
        var failures: [String] = []

        static func + (a: Tally, b: Tally) -> Tally {
            Tally(families: a.families + b.families, paths: a.paths + b.paths, calls: a.calls + b.calls, fusedSteps: a.fusedSteps + b.fusedSteps,
                  mappedSteps: a.mappedSteps + b.mappedSteps, provedSteps: a.provedSteps + b.provedSteps, values: a.values + b.values,
                  refusals: a.refusals + b.refusals, failures: a.failures + b.failures)
        }
    }

    @Test func everyValueComesBackAlongRandomPaths() async throws {
        let started = ContinuousClock.now
        let tally = try await TestPostgres.withDatabaseURL { conninfo in
            // The families run on threads of their own: blocking a thread of the concurrency pool
            // (two on this machine) for the whole run would stall every other test meanwhile.
            let (results, errors) = await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: Self.checkAll(conninfo)) }.start()
            }
            for error in errors { Issue.record(Comment(rawValue: error)) }
            return results.reduce(Tally(), +)
        }
        let seconds = Double((ContinuousClock.now - started).components.seconds)
        print("round-trip property: seed \(Self.seed), \(tally.families) families, \(tally.paths) paths (\(tally.calls) calls, "
            + "\(tally.fusedSteps) fused and \(tally.mappedSteps) mapped steps, \(tally.provedSteps) whose way back proves what it gives back), "
            + "\(tally.values) values compared, \(tally.refusals) expected refusals, \(tally.failures.count) failures, \(Int(seconds)) s")
        for failure in tally.failures.prefix(20) { Issue.record(Comment(rawValue: failure)) }
        if let file = ProcessInfo.processInfo.environment["ROUND_TRIP_PROPERTY_FAILURES"] {
            try? tally.failures.joined(separator: "\n\n").write(toFile: file, atomically: true, encoding: .utf8)
        }
        #expect(tally.failures.isEmpty, "\(tally.failures.count) failures")
        #expect(tally.families == Self.families)
        #expect(tally.paths >= Self.families, "most families must walk their paths: \(tally.refusals) refused")
        #expect(tally.values > 50_000)
        #expect(tally.fusedSteps > 100 && tally.mappedSteps > 100, "fused and mapped steps must be among the paths")
    }

    /// Every family, spread over ``connections`` connections (one thread each); blocks until done.
    static func checkAll(_ conninfo: String) -> (tallies: [Tally], errors: [String]) {
        let results = Locked<[Tally]>([])
        let errors = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: connections) { worker in
            do {
                let connection = try Connection(conninfo)
                var tally = Tally()
                let only = ProcessInfo.processInfo.environment["ROUND_TRIP_PROPERTY_FAMILY"].flatMap(Int.init)
                for index in stride(from: worker, to: Self.families, by: Self.connections) where only == nil || only == index {
                    tally = tally + (try Self.check(family: index, on: connection))
                }
                results.withLock { $0.append(tally) }
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        return (results.value, errors.value)
    }

    /// Generates family `index`, then walks its random paths.
    static func check(family index: Int, on connection: Connection) throws -> Tally {
        var generator = FamilyGenerator(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
        let generated = generator.family(named: "F\(index)")
        var tally = Tally(families: 1)
        let family: ModelFamily
        let mappings: [MappingModel]
        do {
            let versions = try generated.versions.enumerated().map { try ModelVersion(name: "v\($0 + 1)", yaml: $1, file: "F\(index)/v\($0 + 1).yaml") }
            family = try ModelFamily(name: "F\(index)", versions: versions)
            mappings = try generated.mappings.map { mapping in
                // {from} is the older version of the pair, {to} the newer.
                let (older, newer) = (min(mapping.source, mapping.destination) + 1, max(mapping.source, mapping.destination) + 1)
                let text = mapping.yaml.replacingOccurrences(of: "{from}", with: "v\(older)").replacingOccurrences(of: "{to}", with: "v\(newer)")
                return try MappingModel.load(yaml: text, file: "F\(index)/Mappings/v\(mapping.source + 1)-to-v\(mapping.destination + 1).yaml",
                                             family: family, policies: PolicyRegistry())
            }
        } catch {
            tally.failures.append("family \(index) (\(generated.changes.joined(separator: "; "))) does not load: \(error)\n\(generated.versions.joined(separator: "---\n"))")
            return tally
        }
        let planner = MigrationPlanner(family: family, mappings: mappings)
        if ProcessInfo.processInfo.environment["ROUND_TRIP_PROPERTY_FAMILY"] != nil {
            print(generated.versions.enumerated().map { "--- v\($0 + 1)\n\($1)" }.joined() + generated.mappings.map { "--- mapping \($0.source) → \($0.destination)\n\($0.yaml)" }.joined(separator: "\n"))
        }
        let names = family.versionNames
        var planned: [String: MigrationPlan] = [:]
        for trip in 0..<pathsPerFamily {
            var pathRandom = SeededGenerator(seed: seed &+ UInt64(index * 31 + trip))
            var path = [0]
            for _ in 0..<Int.random(in: 1...3, using: &pathRandom) {
                var next = path.last!
                while next == path.last! { next = Int.random(in: 0..<names.count, using: &pathRandom) }
                path.append(next)
            }
            if path.last! != 0 { path.append(0) }
            let calls = zip(path, path.dropFirst()).map { (names[$0], names[$1], $0 > $1 && Int.random(in: 0..<4, using: &pathRandom) == 0) }
            let description = "family \(index) path \(calls.map { "\($0.0) → \($0.1)\($0.2 ? " (no archive)" : "")" }.joined(separator: ", ")) [\(generated.changes.joined(separator: "; "))]"
            var plans: [(MigrationPlan, Bool)] = []
            do {
                plans = try calls.map { call in
                    let key = call.0 + ">" + call.1
                    if let plan = planned[key] { return (plan, call.2) }
                    let plan = try planner.plan(from: call.0, to: call.1)
                    planned[key] = plan
                    return (plan, call.2)
                }
            } catch let PlanningError.stepNotPossible(from, to, reasons) where reasons.allSatisfy({ reason in expectedRefusals.contains { reason.contains($0) } }) {
                _ = (from, to)
                tally.refusals += 1
                continue
            } catch {
                tally.failures.append("\(description): planning failed: \(error)")
                continue
            }
            tally.paths += 1
            tally.calls += plans.count
            tally.fusedSteps += plans.reduce(0) { $0 + $1.0.steps.filter(\.isFused).count }
            tally.mappedSteps += plans.reduce(0) { $0 + $1.0.steps.filter { $0.mappingModel != nil }.count }
            tally.provedSteps += plans.reduce(0) { $0 + $1.0.steps.filter { !$0.archivePlan.proofs.isEmpty }.count }
            do {
                let outcome = try walk(plans, from: family.versions[0], seed: index, on: connection)
                tally.values += outcome.values
                if !outcome.differences.isEmpty {
                    tally.failures.append("\(description): \(outcome.differences.count) values did not come back, e.g. \(outcome.differences.prefix(3).map(\.description))")
                }
            } catch {
                tally.failures.append("\(description): \(error)")
            }
        }
        return tally
    }

    /// Fills a scratch schema of `version`, runs `plans`, and compares: all in a transaction that
    /// is rolled back.
    static func walk(_ plans: [(MigrationPlan, Bool)], from version: ModelVersion, seed: Int, on connection: Connection) throws -> (values: Int64, differences: [RoundTripDifference]) {
        struct RolledBack: Error { let values: Int64, differences: [RoundTripDifference] }
        do {
            try connection.transaction { connection in
                let outcome = try walkInTransaction(plans, from: version, seed: seed, on: connection)
                throw RolledBack(values: outcome.values, differences: outcome.differences)
            }
        } catch let rolledBack as RolledBack {
            return (rolledBack.values, rolledBack.differences)
        }
        return (0, [])
    }

    private static func walkInTransaction(_ plans: [(MigrationPlan, Bool)], from version: ModelVersion, seed: Int, on connection: Connection) throws -> (values: Int64, differences: [RoundTripDifference]) {
        let schema = "property"
        try connection.execute("CREATE SCHEMA \(schema)")
        for statement in version.relationalSchema().createStatements(inSchema: schema, quoting: connection) { try connection.execute(statement) }
        try RoundTripData(version: version, seed: seed, rowsPerEntity: 6).insert(inSchema: schema, on: connection)
        let snapshot = RoundTripSnapshot(version: version, schema: schema)
        try snapshot.take(on: connection)
        let values = try connection.execute("SELECT coalesce(sum((SELECT count(*) FROM jsonb_object_keys(item))), 0)::bigint FROM \(RoundTripSnapshot.table)")
            .first!.decode(Int64.self, at: 0)
        for (plan, withoutArchive) in plans {
            do {
                _ = try plan.run(inSchema: schema, on: connection, allowDestructive: true, archives: !withoutArchive)
            } catch {
                throw RoundTripError("\(plan.path): \(error)")
            }
        }
        let declared = plans.flatMap { RoundTripCheck.declaredLosses($0.0) }
        return (values, try snapshot.differences(on: connection).filter { difference in !declared.contains { $0.excuses(difference) } })
    }
}
