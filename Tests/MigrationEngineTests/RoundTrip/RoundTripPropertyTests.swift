import EntityModel
import Foundation
import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import Testing

/// Issue 22, item 5, and issue 30: a rollback gives back everything, along every path, on
/// generated families.
///
/// For each of ``families`` random families (``FamilyGenerator``: 3 to 5 versions, attributes of
/// every type, to-one, to-many and many-to-many relationships, a hierarchy whose sub-entities are
/// added, removed and moved, inferred and mapped steps, ways back of dropped attributes that can be
/// proved and others of the same values that must not be: volatile, setting-dependent, reading
/// outside the tenant), a schema of a random version (the first where the family widens a type)
/// is filled with synthetic data (``RoundTripData``: NULLs in every
/// optional attribute), then a random sequence of calls up and down (cycles among them; some down
/// calls without archiving where the path starts at the first version) ends where it started, and
/// every value must be as it was unless a step of the trip declared it lost: compared through
/// `jsonb`, and as text per column with the columns, NOT NULLs, defaults, constraints and each
/// identity's next value (``ExactState``). The runs' proofs by the way back are counted and
/// required; where a family's only ways back are unsafe, no call up may prove. A call is refused
/// exactly where the generator made a step whose way down must be (a widening not declared
/// narrowable back), with reasons naming that attribute (``plan(_:_:from:to:)``); any other
/// planning error, or a plan where a refusal was made, fails the test.
///
/// Everything runs on one database, one scratch schema per path, each in a transaction that is
/// rolled back; families are spread over a few connections.
@Suite("Round trips on generated families")
struct RoundTripPropertyTests {
    /// 22 in CI; `ROUND_TRIP_PROPERTY_SEED` runs another (`ROUND_TRIP_PROPERTY_FAMILY` one family of
    /// it, printing its versions; `ROUND_TRIP_PROPERTY_FAILURES` a file for every failure).
    static let seed: UInt64 = ProcessInfo.processInfo.environment["ROUND_TRIP_PROPERTY_SEED"].flatMap(UInt64.init) ?? 22
    /// 150 in CI (about 60 s on an idle machine); `ROUND_TRIP_PROPERTY_FAMILIES` runs more.
    static let families = ProcessInfo.processInfo.environment["ROUND_TRIP_PROPERTY_FAMILIES"].flatMap(Int.init) ?? 150
    static let pathsPerFamily = 2
    /// Every 50th family's first path starts with ``largeRowsPerEntity`` rows per entity (above
    /// 5,000 rows in all): the set-based statements, the archive's copies and restores at size.
    static let largeFamilyEvery = 50, largeRowsPerEntity = 1_200
    static let connections = 3

    /// A call the generator made a step for that must be refused (``plan(_:_:from:to:)``).
    struct ExpectedRefusal: Error {}

    /// Plans a call from version index `from` to `to`. It must be refused exactly where the
    /// generator made a step whose way down must be (``FamilyGenerator/Family/refusals(from:to:)``),
    /// with reasons that each name one of those attributes: then nil. Any other refusal, or a plan
    /// where one was expected, throws.
    static func plan(_ planner: MigrationPlanner, _ generated: FamilyGenerator.Family, from: Int, to: Int) throws -> MigrationPlan? {
        let expected = generated.refusals(from: from, to: to)
        let (source, destination) = ("v\(from + 1)", "v\(to + 1)")
        func names(_ reason: String) -> Bool { expected.contains { $0.contains { reason.contains("attribute \($0) ") } } }
        do {
            let plan = try planner.plan(from: source, to: destination)
            if !expected.isEmpty { throw RoundTripError("\(source) → \(destination) was planned, but the generator made a narrowing of \(expected) that is not declared") }
            return plan
        } catch let PlanningError.stepNotPossible(_, _, reasons) where !expected.isEmpty && !reasons.isEmpty && reasons.allSatisfy(names) {
            return nil
        }
    }

    struct Tally {
        var families = 0, paths = 0, calls = 0, fusedSteps = 0, mappedSteps = 0, provedSteps = 0, values: Int64 = 0, refusals = 0
        /// Proofs by the way back the runs made and withheld (PostgreSQL did not vouch for them).
        var provedColumns = 0, withheldProofs = 0
        /// Paths of families whose only ways back of a dropped attribute are unsafe (no proof may be made).
        var unsafePaths = 0
        /// Paths that started above the first version, and that went up again after coming down.
        var laterStarts = 0, cycles = 0
        /// Paths walked with thousands of rows, and the most rows one of them started with.
        var largePaths = 0, largestRows: Int64 = 0
        /// Paths of families with a `distinct:` mapping, and with a generated Swift policy.
        var distinctPaths = 0, policyPaths = 0
        /// Paths whose data starts at or above the first `distinct:` pair, walks below it and up
        /// again: the rows made anew must keep their ids (issue 30).
        var distinctReruns = 0
        var failures: [String] = []

        static func + (a: Tally, b: Tally) -> Tally {
            var sum = Tally(families: a.families + b.families, paths: a.paths + b.paths, calls: a.calls + b.calls, fusedSteps: a.fusedSteps + b.fusedSteps,
                            mappedSteps: a.mappedSteps + b.mappedSteps, provedSteps: a.provedSteps + b.provedSteps, values: a.values + b.values,
                            refusals: a.refusals + b.refusals, failures: a.failures + b.failures)
            sum.provedColumns = a.provedColumns + b.provedColumns
            sum.withheldProofs = a.withheldProofs + b.withheldProofs
            sum.unsafePaths = a.unsafePaths + b.unsafePaths
            sum.laterStarts = a.laterStarts + b.laterStarts
            sum.cycles = a.cycles + b.cycles
            sum.largePaths = a.largePaths + b.largePaths
            sum.largestRows = max(a.largestRows, b.largestRows)
            sum.distinctPaths = a.distinctPaths + b.distinctPaths
            sum.policyPaths = a.policyPaths + b.policyPaths
            sum.distinctReruns = a.distinctReruns + b.distinctReruns
            return sum
        }
    }

    @Test func everyValueComesBackAlongRandomPaths() async throws {
        let (results, seconds) = try await runPropertyCheck { Self.checkAll($0) }
        let tally = results.reduce(Tally(), +)
        print("round-trip property: seed \(Self.seed), \(tally.families) families, \(tally.paths) paths (\(tally.calls) calls, "
            + "\(tally.fusedSteps) fused and \(tally.mappedSteps) mapped steps, \(tally.provedSteps) whose way back proves what it gives back), "
            + "\(tally.provedColumns) columns proved and \(tally.withheldProofs) proofs withheld as unsafe by the runs (\(tally.unsafePaths) paths with only unsafe ways back), "
            + "\(tally.distinctPaths) paths of families with distinct: mappings (\(tally.distinctReruns) starting at or above the pair, below it and up again) and \(tally.policyPaths) with a Swift policy, "
            + "\(tally.laterStarts) paths starting above v1, \(tally.cycles) with cycles, \(tally.largePaths) large (up to \(tally.largestRows) rows), "
            + "\(tally.values) values compared as text with the schema and identities, \(tally.refusals) expected refusals, \(tally.failures.count) failures, \(Int(seconds)) s")
        reportPropertyFailures(tally.failures)
        #expect(tally.families == Self.families)
        #expect(tally.paths >= Self.families, "most families must walk their paths: \(tally.refusals) refused")
        // (Each at least about a third of what seed 22 gives, per family.)
        #expect(tally.values > Int64(Self.families) * 100)
        #expect(tally.fusedSteps > Self.families / 3 && tally.mappedSteps > Self.families / 3, "fused and mapped steps must be among the paths")
        #expect(tally.provedColumns > Self.families / 30 && tally.withheldProofs > Self.families / 50 && tally.unsafePaths > Self.families / 60,
                "proofs must be made, and withheld where unsafe")
        #expect(tally.distinctPaths > Self.families / 30 && tally.policyPaths > Self.families / 30, "distinct: mappings and policies must be among the paths")
        #expect(tally.laterStarts > Self.families / 2 && tally.cycles > Self.families / 4, "paths must start at later versions and cycle")
        #expect(tally.largePaths >= Self.families / Self.largeFamilyEvery - 1 && (Self.families < Self.largeFamilyEvery || tally.largestRows > 5_000),
                "a few paths must start with thousands of rows")
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
            (family, mappings) = try load(generated, index: index)
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
            let start = generated.randomStart(names.count, using: &pathRandom)
            var path = [start]
            for _ in 0..<Int.random(in: 1...3, using: &pathRandom) {
                var next = path.last!
                while next == path.last! { next = Int.random(in: 0..<names.count, using: &pathRandom) }
                path.append(next)
            }
            if path.last! != start { path.append(start) }
            // (A call down without the archive loses what it drops: only where the path starts at the
            // first version, whose data has none of it.)
            let calls = zip(path, path.dropFirst()).map { ($0, $1, start == 0 && $0 > $1 && Int.random(in: 0..<4, using: &pathRandom) == 0) }
            let description = "family \(index) path \(calls.map { "\(names[$0.0]) → \(names[$0.1])\($0.2 ? " (no archive)" : "")" }.joined(separator: ", ")) [\(generated.changes.joined(separator: "; "))]"
            var plans: [(MigrationPlan, Bool)] = []
            do {
                plans = try calls.map { call in
                    let key = names[call.0] + ">" + names[call.1]
                    if let plan = planned[key] { return (plan, call.2) }
                    guard let plan = try Self.plan(planner, generated, from: call.0, to: call.1) else { throw ExpectedRefusal() }
                    planned[key] = plan
                    return (plan, call.2)
                }
            } catch is ExpectedRefusal {
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
            if start > 0 { tally.laterStarts += 1 }
            if generated.distinctVersion != nil { tally.distinctPaths += 1 }
            if let distinct = generated.distinctVersion, start >= distinct, let lowest = path.min(), lowest < distinct,
               path.drop(while: { $0 != lowest }).contains(where: { $0 >= distinct }) { tally.distinctReruns += 1 }
            if !generated.policies.isEmpty { tally.policyPaths += 1 }
            // Down, then up again: the archive of a pair is written anew while its superseded entries stay.
            if zip(path, path.dropFirst()).map({ $0 < $1 }).split(separator: false).count > 1 || (path.count > 3 && path[1] < start) { tally.cycles += 1 }
            do {
                // A few families are large (thousands of rows per table; RoundTripData fills them
                // set-based): only their first path, so the suite stays quick.
                let large = index % largeFamilyEvery == largeFamilyEvery - 1 && trip == 0
                let outcome = try walk(plans, from: family.versions[start], seed: index, rows: large ? largeRowsPerEntity : 6, on: connection)
                if large { tally.largePaths += 1; tally.largestRows = max(tally.largestRows, outcome.rows) }
                let provedUp = outcome.provedUp
                tally.values += outcome.values
                tally.provedColumns += outcome.statistics.provedColumns
                tally.withheldProofs += outcome.statistics.withheldProofs
                if generated.unsafeWayBacks > 0, generated.safeWayBacks == 0 {
                    tally.unsafePaths += 1
                    // (Calls down may prove by the way up's mapping, which is safe.)
                    if provedUp > 0 {
                        tally.failures.append("\(description): \(provedUp) proofs made by ways back PostgreSQL cannot vouch for")
                    }
                }
                if !outcome.differences.isEmpty {
                    tally.failures.append("\(description): \(outcome.differences.count) values did not come back, e.g. \(outcome.differences.prefix(3).map(\.description))")
                }
                if !outcome.exact.isEmpty {
                    tally.failures.append("\(description): not given back exactly: \(outcome.exact.prefix(3))")
                }
            } catch {
                tally.failures.append("\(description): \(error)")
            }
        }
        return tally
    }

    /// The generated family's versions and mapping models.
    static func load(_ generated: FamilyGenerator.Family, index: Int) throws -> (ModelFamily, [MappingModel]) {
        let versions = try generated.versions.enumerated().map { try ModelVersion(name: "v\($0 + 1)", yaml: $1, file: "F\(index)/v\($0 + 1).yaml") }
        let family = try ModelFamily(name: "F\(index)", versions: versions)
        let mappings = try generated.mappings.map { mapping in
            // {from} is the older version of the pair, {to} the newer.
            let (older, newer) = (min(mapping.source, mapping.destination) + 1, max(mapping.source, mapping.destination) + 1)
            let text = mapping.yaml.replacingOccurrences(of: "{from}", with: "v\(older)").replacingOccurrences(of: "{to}", with: "v\(newer)")
            return try MappingModel.load(yaml: text, file: "F\(index)/Mappings/v\(mapping.source + 1)-to-v\(mapping.destination + 1).yaml",
                                         family: family, policies: generated.registry)
        }
        return (family, mappings)
    }

    /// Fills a scratch schema of `version`, runs `plans`, and compares: all in a transaction that
    /// is rolled back.
    /// What one path gave: values compared, those that did not come back (through `jsonb`, and as
    /// text with the schema and identities: ``ExactState``), and what its runs did.
    struct Outcome: Error {
        var values: Int64 = 0
        /// Rows the path started with.
        var rows: Int64 = 0
        var differences: [RoundTripDifference] = []
        var exact: [String] = []
        var statistics = StepStatistics()
        /// Columns proved by the calls up (whose ways back are the generated mappings down).
        var provedUp = 0
    }

    static func walk(_ plans: [(MigrationPlan, Bool)], from version: ModelVersion, seed: Int, rows: Int = 6, on connection: Connection) throws -> Outcome {
        do {
            try connection.transaction { connection in throw try walkInTransaction(plans, from: version, seed: seed, rows: rows, on: connection) }
        } catch let outcome as Outcome {
            return outcome
        }
        return Outcome()
    }

    private static func walkInTransaction(_ plans: [(MigrationPlan, Bool)], from version: ModelVersion, seed: Int, rows: Int, on connection: Connection) throws -> Outcome {
        let schema = "property"
        try connection.execute(unsafeSQL: "CREATE SCHEMA \(schema)")
        for statement in version.relationalSchema().createStatements(inSchema: schema, quoting: connection) { try connection.execute(unsafeSQL: statement) }
        try RoundTripData(version: version, seed: seed, rowsPerEntity: rows).insert(inSchema: schema, on: connection)
        let snapshot = RoundTripSnapshot(version: version, schema: schema)
        try snapshot.take(on: connection)
        let exact = try ExactState.read(schema, version: version, on: connection)
        var outcome = Outcome()
        let values = try connection.execute("SELECT coalesce(sum((SELECT count(*) FROM jsonb_object_keys(item))), 0)::bigint FROM \(RoundTripSnapshot.table)")
            .first!.decode(Int64.self, at: 0)
        for (plan, withoutArchive) in plans {
            do {
                let statistics = try plan.run(inSchema: schema, on: connection, allowDestructive: true, archives: !withoutArchive)
                outcome.statistics = outcome.statistics + statistics
                if plan.path.direction == .up { outcome.provedUp += statistics.provedColumns }
            } catch {
                throw RoundTripError("\(plan.path): \(error)")
            }
        }
        let declared = plans.flatMap { RoundTripCheck.declaredLosses($0.0) }
        outcome.values = values
        outcome.rows = try connection.execute("SELECT count(*)::bigint FROM \(RoundTripSnapshot.table)").first!.decode(Int64.self, at: 0)
        outcome.differences = try snapshot.differences(on: connection).filter { difference in !declared.contains { $0.excuses(difference) } }
        // Declared losses excuse their columns' values as text too; the schema must come back whole.
        let excusedTables = Set(declared.map(\.table))
        outcome.exact = try ExactState.read(schema, version: version, on: connection).differences(from: exact)
            .filter { line in !excusedTables.contains { !$0.isEmpty && line.hasPrefix($0 + ": rows") } }
        return outcome
    }
}
