import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import Testing

/// A narrowing that fails on a tenant's data names its table, column, value and a row, found
/// after the rollback (issue 20): over generated data, NULLs included, with gaps in the ids.
@Suite("Failure diagnosis")
struct FailureDiagnosisTests {
    /// Issue v1 → v2 renames `prio` to `priority` and narrows it from int32 to int16.
    static func family() throws -> ModelFamily {
        try ModelFamily.load(from: PackagePaths.trackerFamily)
    }

    /// `count` rows of generated priorities: NULL, fitting a smallint, or not (either sign), with
    /// every third id missing; at least one value does not fit.
    static func priorities(count: Int, seed: UInt64) -> [(id: Int64, value: Int32?)] {
        var generator = SeededGenerator(seed: seed)
        var rows: [(id: Int64, value: Int32?)] = []
        for id in 1...Int64(count * 3 / 2) where id % 3 != 0 {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0, 1: rows.append((id, nil))
            case 2: rows.append((id, Int32.random(in: 32768...Int32.max, using: &generator) * (Bool.random(using: &generator) ? 1 : -1)))
            default: rows.append((id, Int32.random(in: -32768...32767, using: &generator)))
            }
        }
        if !rows.contains(where: { $0.value.map { !(-32768...32767).contains($0) } ?? false }) { rows[rows.count / 2].value = 40000 }
        return rows
    }

    @Test(arguments: [(1, true), (2, false), (3, true), (4, false), (5, true)] as [(UInt64, Bool)])
    func aFailedNarrowingNamesTheLowestRowWhoseValueDoesNotFit(seed: UInt64, archives: Bool) async throws {
        let family = try Self.family()
        try await TestPostgres.withDatabase { connection in
            let schema = "tenant_diagnosis"
            try connection.fixtureScript("CREATE SCHEMA \(schema)")
            try connection.fixtureScript(family.version(named: "v1")!.relationalSchema().createStatements(inSchema: schema, quoting: connection)
                .joined(separator: ";\n"))
            let rows = Self.priorities(count: 400, seed: seed)
            let values = rows.map { "(\($0.id), 'issue \($0.id)', \($0.value.map(String.init) ?? "NULL"))" }.joined(separator: ", ")
            try connection.fixtureScript("INSERT INTO \(schema).issue (id, title, prio) VALUES \(values)")
            let expected = try #require(rows.first { $0.value.map { !(-32768...32767).contains($0) } ?? false })

            let plan = try MigrationPlanner(family: family).plan(from: "v1", to: "v2")
            let step = try #require(plan.steps.first)
            let failure: PQError
            do {
                _ = try connection.transaction { try plan.run(inSchema: schema, on: $0, allowDestructive: true, archives: archives) }
                Issue.record("the narrowing must fail on \(expected)")
                return
            } catch let error as PQError {
                failure = error
            }
            #expect(failure.sqlState == .numericValueOutOfRange)

            let diagnosis = try #require(FailureDiagnosis.diagnose(failure, in: step, schema: schema, on: connection))
            #expect(diagnosis.rowID == expected.id && diagnosis.value == expected.value.map(String.init), "\(diagnosis), expected \(expected)")
            #expect(diagnosis.table == "issue" && diagnosis.column == "priority" && diagnosis.type == .smallint)
            #expect(diagnosis.sqlState == .numericValueOutOfRange)

            let explained = FailureDiagnosis.explaining(failure, in: step, schema: schema, on: connection)
            let text = "\(explained)"
            #expect((explained as? PQError)?.sqlState == .numericValueOutOfRange, "the SQLSTATE stays the server's")
            #expect(text.contains("ERROR 22003") && text.contains("table \(schema).issue, column priority")
                    && text.contains("row id \(expected.id) holds \"\(expected.value!)\", which does not fit smallint"), "\(text)")
            // Only read: the tenant is as the rollback left it.
            #expect(try connection.execute(unsafeSQL: "SELECT count(*)::int8 FROM \(schema).issue").first?.decode(Int64.self, at: 0) == Int64(rows.count))
        }
    }

    /// An error no type change of the step explains (here a syntax error) is left as it is.
    @Test func aFailureNoTypeChangeExplainsIsLeftAsItIs() async throws {
        let family = try Self.family()
        try await TestPostgres.withDatabase { connection in
            let step = try #require(try MigrationPlanner(family: family).plan(from: "v1", to: "v2").steps.first)
            let failure: PQError
            do {
                try connection.execute("SELEC 1")
                return
            } catch let error as PQError {
                failure = error
            }
            #expect(FailureDiagnosis.diagnose(failure, in: step, schema: "tenant_none", on: connection) == nil)
            #expect("\(FailureDiagnosis.explaining(failure, in: step, schema: "tenant_none", on: connection))" == "\(failure)")
        }
    }
}
