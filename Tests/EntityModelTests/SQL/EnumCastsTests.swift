import EntityModel
import Testing
import TypedSQL

/// Issue 34: a model's expressions that cast to its own enum types (as `model import` carries
/// them from PostgreSQL: `state <> 'shipped'::order_state`) name the type in the tenant's schema
/// in the DDL; casts to other types, inside literals or quoted names, or already qualified stay as
/// written.
@Suite("Casts to a model's enum types")
struct EnumCastsTests {
    static let version = """
        enums:
          order_state: [cart, placed, shipped]
          PayMethod: [card, invoice]
        entities:
          Order:
            attributes:
              state: { type: "enum(order_state)", default: "cart" }
              paysBy: { type: "enum(PayMethod)", default: "card" }
              note: { type: string, optional: true }
            indexes:
              - { on: [note], where: "(state <> 'shipped'::order_state)" }
            checks:
              - "((pays_by = ANY (ARRAY['card'::\\"PayMethod\\", 'invoice'::\\"PayMethod\\"])) AND (note IS DISTINCT FROM '::order_state'))"
              - "(state <> 'x::order_state'::text::order_state OR note::text <> '' OR state::public.order_state IS NULL)"
        """

    @Test func castsToTheModelsEnumTypesNameTheTenantsSchema() throws {
        let version = try ModelVersion(name: "v1", yaml: Self.version, file: "v1.yaml")
        let statements = version.relationalSchema().creationStatements.map { $0.text(schema: "tenant_a") }.joined(separator: "\n")
        #expect(statements.contains(#"WHERE (state <> 'shipped'::"tenant_a"."order_state")"#), "\(statements)")
        #expect(statements.contains(#"(pays_by = ANY (ARRAY['card'::"tenant_a"."PayMethod", 'invoice'::"tenant_a"."PayMethod"])) AND (note IS DISTINCT FROM '::order_state')"#), "\(statements)")
        #expect(statements.contains(#"(state <> 'x::order_state'::text::"tenant_a"."order_state" OR note::text <> '' OR state::public.order_state IS NULL)"#), "\(statements)")
        #expect(!statements.contains("\u{1}"))
    }
}
