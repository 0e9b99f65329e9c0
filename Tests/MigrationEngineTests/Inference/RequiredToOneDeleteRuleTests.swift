import EntityModel
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// A required to-one whose inverse has the default delete rule (`nullify`) cannot be cleared when
/// its destination goes: Core Data refuses to save such a deletion (a validation error). In SQL that
/// is `ON DELETE NO ACTION`, not `SET NULL`, which PostgreSQL then fails with 23502 on the NOT NULL
/// column (issue 34, from keyedmap's notes). New tenants and inferred steps get NO ACTION; a tenant
/// made before, with SET NULL on the NOT NULL column, verifies clean (both refuse the deletion).
@Suite("A required to-one's delete rule")
struct RequiredToOneDeleteRuleTests {
    static func version(rule: String) -> String {
        """
        entities:
          Customer:
            attributes:
              name: { type: string }
            relationships:
              orders: { destination: Order, toMany: true, inverse: customer\(rule) }
          Order:
            attributes:
              total: { type: int32, default: 0 }
            relationships:
              customer: { destination: Customer, inverse: orders, optional: false }
        """
    }

    static func family() throws -> ModelFamily {
        try ModelFamily(name: "Shop", versions: [("v1", version(rule: ", deleteRule: cascade")), ("v2", version(rule: ""))].map {
            try ModelVersion(name: $0.0, yaml: $0.1, file: "Shop/\($0.0).yaml")
        })
    }

    static func deleteAction(in schema: String, on connection: Connection) throws -> String {
        try connection.scalar("""
            SELECT confdeltype::text || CASE WHEN convalidated THEN '' ELSE ' not valid' END FROM pg_constraint
            WHERE conrelid = ($1 || '.order')::regclass AND contype = 'f'
            """, [schema], as: String.self)
    }

    @Test func aNewTenantRefusesTheDeletionWithAForeignKeyViolation() async throws {
        let v2 = try #require(try Self.family().version(named: "v2"))
        let statements = v2.relationalSchema().createStatements(inSchema: "t", quoting: .postgreSQL)
        #expect(statements.contains { $0.contains(#"FOREIGN KEY ("customer_id") REFERENCES "t"."customer" ("id") ON DELETE NO ACTION"#) },
                "\(statements.joined(separator: "\n"))")
        try await TestPostgres.withDatabase { connection in
            let tenant = try CatalogTenant(of: try Self.family(), at: "v2", on: connection)
            let schema = tenant.schema
            try connection.fixtureScript("""
                INSERT INTO \(schema).customer (name) VALUES ('kept'), ('gone');
                INSERT INTO \(schema).order (customer_id) VALUES (1)
                """)
            #expect(try Self.deleteAction(in: schema, on: connection) == "a")
            do {
                try connection.fixtureScript("DELETE FROM \(schema).customer WHERE id = 1")
                Issue.record("a customer with an order was deleted")
            } catch let error as PQError {
                #expect(error.sqlState?.rawValue == "23503", "\(error)")
                #expect("\(error)".contains("order_customer_id_fkey"), "\(error)")
            }
            try connection.fixtureScript("DELETE FROM \(schema).customer WHERE id = 2")
            #expect(try tenant.verify(on: connection).isClean)
            // A tenant made before, whose key deletes with SET NULL on the NOT NULL column, verifies clean.
            try connection.fixtureScript("""
                ALTER TABLE \(schema).order DROP CONSTRAINT order_customer_id_fkey;
                ALTER TABLE \(schema).order ADD CONSTRAINT order_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES \(schema).customer (id) ON DELETE SET NULL
                """)
            #expect(try tenant.verify(on: connection).isClean)
        }
    }

    @Test func anInferredStepChangesTheRuleUpAndBack() async throws {
        let planner = MigrationPlanner(family: try Self.family())
        let up = try planner.plan(from: "v1", to: "v2").steps.flatMap { $0.describe(inSchema: "s") }
        #expect(up.contains(#"ALTER TABLE "s"."order" ADD CONSTRAINT "order_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "s"."customer" ("id") ON DELETE NO ACTION NOT VALID"#), "\(up)")
        #expect(up.contains(#"ALTER TABLE "s"."order" VALIDATE CONSTRAINT "order_customer_id_fkey""#), "\(up)")
        try await TestPostgres.withDatabase { connection in
            let tenant = try CatalogTenant(of: try Self.family(), on: connection)
            let schema = tenant.schema
            try connection.fixtureScript("INSERT INTO \(schema).customer (name) VALUES ('a'); INSERT INTO \(schema).order (customer_id) VALUES (1)")
            #expect(try Self.deleteAction(in: schema, on: connection) == "c")
            #expect(try tenant.migrate(.migrate(to: "v2"), on: connection).outcome == .migrated)
            #expect(try Self.deleteAction(in: schema, on: connection) == "a")
            #expect(try tenant.verify(on: connection).isClean)
            #expect(try tenant.migrate(.rollback(to: "v1"), on: connection).outcome == .migrated)
            #expect(try Self.deleteAction(in: schema, on: connection) == "c")
            #expect(try tenant.verify(on: connection).isClean)
        }
    }
}
