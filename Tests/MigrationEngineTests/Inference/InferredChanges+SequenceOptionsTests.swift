import EntityModel
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34: a sequence's `minValue`, `maxValue`, `cycle` and `cache` are part of the model: a new
/// tenant's sequence has them, `verify` names a difference, a change between versions is altered
/// in the catalog (position kept), and a change that leaves the sequence's position outside its new
/// bounds is refused before anything is touched, naming the sequence and its position.
@Suite("Sequence options between versions")
struct InferredChangesSequenceOptionsTests {
    static let part = partKeyedBySequence("integer")
    static let v1 = part + """
        sequences:
          part_seq: { type: integer, start: 10, minValue: 10, maxValue: 1000, cache: 5 }
        """
    static let v2 = part + """
        sequences:
          part_seq: { type: integer, start: 10, minValue: 10, maxValue: 5000, cycle: true, cache: 5 }
        """
    /// A maximum below what a busy tenant has drawn.
    static let v3 = part + """
        sequences:
          part_seq: { type: integer, start: 10, minValue: 10, maxValue: 50, cycle: true, cache: 5 }
        """

    static func family() throws -> ModelFamily {
        try ModelFamily(name: "SeqOptions", versions: [("v1", v1), ("v2", v2), ("v3", v3)].map { try ModelVersion(name: $0.0, yaml: $0.1, file: "SeqOptions/\($0.0).yaml") })
    }

    @Test func theOptionsAreWrittenCreatedAndAlteredInTheCatalogOnly() throws {
        let family = try Self.family()
        let v1 = try #require(family.version(named: "v1"))
        #expect(v1.sequences.map(\.creation).map { $0.text(schema: "s") } == [
            #"CREATE SEQUENCE "s"."part_seq" AS integer START WITH 10 INCREMENT BY 1 MINVALUE 10 MAXVALUE 1000 CACHE 5"#,
        ])
        #expect(v1.yamlText().contains("  part_seq: { type: integer, start: 10, minValue: 10, maxValue: 1000, cache: 5 }"), "\(v1.yamlText())")
        let v2 = try #require(family.version(named: "v2"))
        #expect(try ModelVersion(name: "v2", yaml: v2.yamlText(), file: "SeqOptions/v2.yaml").versionHash == v2.versionHash)
        let planner = MigrationPlanner(family: family)
        #expect(try planner.plan(from: "v1", to: "v2").steps.flatMap { $0.describe(inSchema: "s") } == [#"ALTER SEQUENCE "s"."part_seq" MAXVALUE 5000 CYCLE"#])
        #expect(try planner.plan(from: "v2", to: "v1").steps.flatMap { $0.describe(inSchema: "s") } == [#"ALTER SEQUENCE "s"."part_seq" MAXVALUE 1000 NO CYCLE"#])
        // A sequence written before these keys existed keeps its hash: the options hash only where given.
        let plain = try ModelVersion(name: "p", yaml: Self.part + "sequences:\n  part_seq: { type: integer, start: 10 }\n", file: "p.yaml")
        let explicit = try ModelVersion(name: "p", yaml: Self.part + "sequences:\n  part_seq: { type: integer, start: 10, minValue: 1, cache: 1, cycle: false }\n", file: "p.yaml")
        #expect(plain.versionHash == explicit.versionHash)
        #expect(plain.versionHash != v1.versionHash)
    }

    @Test func optionsThatDoNotFitAreRefusedWhenTheModelLoads() {
        for (options, message) in [
            ("{ minValue: 10, maxValue: 5 }", "minValue"), ("{ start: 0 }", "start"), ("{ start: 2000, maxValue: 1000 }", "start"),
            ("{ cache: 0 }", "cache"), ("{ type: smallint, maxValue: 40000 }", "maxValue"),
        ] {
            #expect {
                try ModelVersion(name: "v", yaml: Self.part + "sequences:\n  part_seq: \(options)\n", file: "v.yaml")
            } throws: { "\($0)".contains(message) && "\($0)".contains("part_seq") }
        }
    }

    @Test func aTenantMigratesTheOptionsAndARefusedMaximumNamesThePosition() async throws {
        try await TestPostgres.withDatabase { connection in
            let tenant = try CatalogTenant(of: try Self.family(), on: connection)
            let schema = tenant.schema
            func settings() throws -> String? {
                try connection.column("""
                    SELECT min_value || ' ' || max_value || ' ' || cache_size || ' ' || cycle FROM pg_sequences WHERE schemaname = $1 AND sequencename = 'part_seq'
                    """, [schema], as: String.self).first
            }
            func nextPart() throws -> Int64 {
                try connection.scalar("INSERT INTO \(schema).part (name) VALUES ('p') RETURNING id", as: Int64.self)
            }
            #expect(try settings() == "10 1000 5 false")
            #expect(try tenant.verify(on: connection).isClean)
            #expect(try nextPart() == 10)
            // Drift: verify names the sequence and its settings.
            try connection.fixtureScript("ALTER SEQUENCE \(schema).part_seq MAXVALUE 2000")
            let drifted = try tenant.verify(on: connection)
            #expect(drifted.differences.map(\.description).contains { $0.contains("part_seq") && $0.contains("MAXVALUE 2000") && $0.contains("MAXVALUE 1000") },
                    "\(drifted.differences.map(\.description))")
            try connection.fixtureScript("ALTER SEQUENCE \(schema).part_seq MAXVALUE 1000")

            let up = try tenant.migrate(.migrate(to: "v2"), on: connection)
            #expect(up.outcome == .migrated, "\(up)")
            #expect(try settings() == "10 5000 5 true")
            #expect(try tenant.verify(on: connection).isClean)
            // The position is kept (a new session: the cache of 5 was this one's).
            try connection.fixtureScript("SELECT setval('\(schema).part_seq', 60)")
            #expect(try nextPart() == 61)

            // v3's maximum 50 is below the position, 65 (this session took 61 and cached up to 65, CACHE 5):
            // refused before anything changed, naming both.
            do {
                let refused = try tenant.migrate(.migrate(to: "v3"), on: connection)
                Issue.record("migrated: \(refused)")
            } catch {
                let text = "\(error)"
                #expect(text.contains("part_seq") && text.contains("position 65") && text.contains("maxValue 50"), "\(text)")
            }
            #expect(try settings() == "10 5000 5 true")
            #expect(try tenant.catalog.tenant(tenant.name, on: connection)?.version == "v2")

            let down = try tenant.migrate(.rollback(to: "v1"), on: connection)
            #expect(down.outcome == .migrated, "\(down)")
            #expect(try settings() == "10 1000 5 false")
            // (From this session's cache, or past it.)
            #expect(try (62...66).contains(nextPart()))
            #expect(try tenant.verify(on: connection).isClean)
        }
    }
}
