import EntityModel
import LibPQ

/// `check --round-trip`: does every way there and back give the data back?
///
/// For every pair of versions i < j and every shape of the way there and back (one call up and one
/// down; one call up, then one release at a time down; one release at a time up, then one call
/// down; one release at a time both ways), the check creates a scratch schema of version i (the
/// same DDL as `tenant create`), fills it with ``RoundTripData``, runs the family's real plans
/// along those calls (archive on, consent given), and compares every value with how it was
/// (``RoundTripSnapshot``). A difference that a step of the trip declares lost (a `loses:` entry or
/// a policy's `loses`, for that table and column) is excused; any other is reported.
///
/// Everything runs in one transaction that is rolled back, with a savepoint per round trip: the
/// database is left as it was, and no tenant is touched.
public struct RoundTripCheck: Sendable {
    public let family: ModelFamily
    public let planner: MigrationPlanner
    public var seed: Int
    public var rowsPerEntity: Int

    public init(family: ModelFamily, planner: MigrationPlanner, seed: Int = 1, rowsPerEntity: Int = 50) {
        self.family = family
        self.planner = planner
        self.seed = seed
        self.rowsPerEntity = rowsPerEntity
    }

    /// The pairs of versions checked, i < j.
    @available(*, deprecated, message: "every pair i < j is checked along every path shape: use paths")
    public var trips: [(from: String, to: String)] {
        let names = family.versionNames
        return names.indices.flatMap { i in names.indices.filter { $0 > i }.map { (from: names[i], to: names[$0]) } }
    }

    /// The trips checked, each as the versions its calls end at, starting with the first: for every
    /// pair of versions i < j, `[vi, vj, vi]`, and when they are not adjacent also
    /// `[vi, vj, …one release at a time…, vi]`, `[vi, …, vj, vi]` and `[vi, …, vj, …, vi]`.
    public var paths: [[String]] { Self.shapes(family.versionNames) }

    /// Every path shape for every pair i < j of `names` (oldest first).
    static func shapes(_ names: [String]) -> [[String]] {
        var paths: [[String]] = []
        for i in names.indices {
            for j in names.indices where j > i {
                let up = Array(names[i...j]), down = Array(up.reversed())
                paths.append([names[i], names[j], names[i]])
                guard j > i + 1 else { continue }
                paths.append([names[i]] + down)                   // one call up, one release at a time down
                paths.append(up + [names[i]])                     // one release at a time up, one call down
                paths.append(up + down.dropFirst())               // one release at a time both ways
            }
        }
        return paths
    }

    /// Runs every trip on `connection`, in a transaction (a savepoint when the caller has one open)
    /// that is always rolled back, with a savepoint per trip that is rolled back too.
    public func run(on connection: Connection) throws -> RoundTripReport {
        let schema = "_tm_round_trip_\(try connection.execute("SELECT pg_catalog.pg_backend_pid()").first!.decode(Int32.self, at: 0))"
        let results = try Self.rolledBack({ try connection.transaction($0) }) { connection in
            try paths.map { path in
                try Self.rolledBack({ try connection.savepoint($0) }) { connection in runTrip(path, schema: schema, on: connection) }
            }
        }
        return RoundTripReport(family: family.name, seed: seed, rowsPerEntity: rowsPerEntity, trips: results)
    }

    /// Runs `body` in `scope` (``Connection/transaction(beginStatement:_:)`` or
    /// ``Connection/savepoint(_:)``, which track nesting), then rolls the scope back and returns
    /// what `body` returned.
    private static func rolledBack<T: Sendable>(
        _ scope: ((Connection) throws -> Never) throws -> Never, _ body: @escaping (Connection) throws -> T
    ) throws -> T {
        do {
            try scope { connection in throw RolledBack(value: try body(connection)) }
        } catch let rolledBack as RolledBack<T> {
            return rolledBack.value
        }
    }

    private func runTrip(_ path: [String], schema: String, on connection: Connection) -> RoundTripResult {
        var result = RoundTripResult(path: path)
        do {
            guard let version = family.version(named: path[0]) else { throw RoundTripError("no version \(path[0]) in family \(family.name)") }
            let plans = try zip(path, path.dropFirst()).map { try planner.plan(from: $0, to: $1) }
            try ExpressionTrust(version: version).check(on: connection)
            try connection.execute("CREATE SCHEMA \(id: schema)")
            for statement in version.relationalSchema().creationStatements {
                try connection.execute(statement, schema: schema)
            }
            try RoundTripData(version: version, seed: seed, rowsPerEntity: rowsPerEntity).insert(inSchema: schema, on: connection)
            let snapshot = RoundTripSnapshot(version: version, schema: schema)
            try snapshot.take(on: connection)
            result.rows = try connection.execute("SELECT pg_catalog.count(*) FROM \(RoundTripSnapshot.table)").first!.decode(Int64.self, at: 0)
            var statistics = StepStatistics()
            for plan in plans { statistics = statistics + (try plan.run(inSchema: schema, on: connection, allowDestructive: true, archives: true)) }
            result.statistics = statistics
            let declared = plans.flatMap(Self.declaredLosses)
            for difference in try snapshot.differences(on: connection) {
                if declared.contains(where: { $0.excuses(difference) }) { result.excused += 1 } else { result.differences.append(difference) }
            }
        } catch {
            result.error = "\(error)"
        }
        return result
    }

    /// What the steps declare lost, by table and column: their `loses:` entries (the mapping's,
    /// its entity mappings' and its policies'), and whatever is lost even with the archive.
    static func declaredLosses(_ plan: MigrationPlan) -> [DestructiveChange] {
        plan.steps.flatMap { step in
            step.account.destroyed.compactMap { entry -> DestructiveChange? in
                guard case let .destroyed(change) = entry.fate, change.kind == .custom else { return nil }
                return change
            } + step.account.lostChanges(archiving: true)
        }
    }
}

extension DestructiveChange {
    /// Whether this declared loss covers the difference: same table, and same column or the rows
    /// as a whole. A loss declared without a table covers nothing: name the attribute in `loses:`.
    func excuses(_ difference: RoundTripDifference) -> Bool {
        !table.isEmpty && table == difference.table && (column == nil || column == difference.column)
    }
}

/// Carries a value out of a transaction or savepoint so that it is rolled back.
private struct RolledBack<T: Sendable>: Error {
    let value: T
}

/// A round trip could not be set up.
public struct RoundTripError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One way there and back.
public struct RoundTripResult: Sendable, Codable, Hashable {
    /// The versions each call of the trip ends at, starting with the first: `[v1, v3, v2, v1]` is
    /// v1 → v3 in one call, then v3 → v2 and v2 → v1.
    public var path: [String]
    /// Rows generated (over every table) before the trip.
    public var rows: Int64 = 0
    /// Values that did not come back and that no step declares lost.
    public var differences: [RoundTripDifference] = []
    /// Differences a step declares lost.
    public var excused = 0
    /// Why the trip could not run (data generation or a step failed), if it could not.
    public var error: String?
    /// What its steps did, summed: among others what the archive shows of the trip (columns proved
    /// by the way back, proofs withheld as unsafe, links given back by target, values the app's
    /// changes superseded). Nil in reports of earlier releases, and where a step failed.
    public var statistics: StepStatistics?

    public var passed: Bool { differences.isEmpty && error == nil }
}

/// The outcome of `check --round-trip`.
public struct RoundTripReport: Sendable, Codable, Hashable {
    public var family: String
    public var seed: Int
    public var rowsPerEntity: Int
    public var trips: [RoundTripResult]

    /// True when every trip gave every undeclared value back.
    public var passed: Bool { trips.allSatisfy(\.passed) }
}
