import EntityModel
import Testing

/// Issue 34: enum types in a version file (`enums:`, `type: enum(name)`): read, validated, written
/// back, hashed and rendered as DDL in the tenant's schema.
struct EnumLoadingTests {
    static let yaml = """
        enums:
          order_status: [new, paid, shipped]
          carrier: { values: [dhl, parcel], renamed: { parcel: ups } }
        entities:
          Order:
            attributes:
              status: { type: "enum(order_status)", default: "new", indexed: true }
              carrier: { type: enum(carrier), optional: true }
        """

    @Test func enumsAndTheirAttributesLoad() throws {
        let loaded = try version(Self.yaml)
        #expect(loaded.enums == [EnumType(name: "carrier", values: ["dhl", "parcel"], renamedValues: ["parcel": "ups"]),
                                 EnumType(name: "order_status", values: ["new", "paid", "shipped"])])
        let status = try #require(loaded.entity(named: "Order")?.attribute(named: "status"))
        #expect(status.sqlType == .enumeration("order_status"))
        #expect(status.sqlType.enumName == "order_status")
        #expect(status.typeName == "enum(order_status)")
        #expect(status.defaultValue == .string("new"))
    }

    @Test func theWrittenTextLoadsBackAsTheSameVersion() throws {
        let loaded = try version(Self.yaml)
        let text = loaded.yamlText()
        #expect(text.hasPrefix("enums:\n  carrier: { values: [dhl, parcel], renamed: { parcel: ups } }\n  order_status: [new, paid, shipped]\nentities:\n"), "\(text)")
        let reloaded = try version(text)
        #expect(reloaded == loaded)
        #expect(reloaded.versionHash == loaded.versionHash)
    }

    @Test func theHashCoversTheValuesButNotTheRenamings() throws {
        let loaded = try version(Self.yaml)
        let reordered = try version(Self.yaml.replacing("[new, paid, shipped]", with: "[new, shipped, paid]"))
        let unrenamed = try version(Self.yaml.replacing(", renamed: { parcel: ups }", with: ""))
        #expect(reordered.versionHash != loaded.versionHash)
        #expect(unrenamed.versionHash == loaded.versionHash)
        // A model without enums hashes as it did before enums existed.
        let plain = "entities:\n  Order:\n    attributes:\n      status: { type: string }\n"
        #expect(try version(plain).versionHash == (try ModelVersion(name: "v1", entities: try version(plain).entities)).versionHash)
    }

    @Test func theDDLCreatesTheTypesFirstInTheTenantSchema() throws {
        let statements = try version(Self.yaml).relationalSchema().createStatements(inSchema: "tenant_acme", quoting: .postgreSQL)
        #expect(statements.prefix(2) == [#"CREATE TYPE "tenant_acme"."carrier" AS ENUM ('dhl', 'parcel')"#,
                                         #"CREATE TYPE "tenant_acme"."order_status" AS ENUM ('new', 'paid', 'shipped')"#])
        #expect(statements[2].contains(#""status" "tenant_acme"."order_status" NOT NULL DEFAULT 'new'"#), "\(statements[2])")
    }

    @Test(arguments: [
        ("status: { type: \"enum(order_status)\", default: \"new\"", "status: { type: \"enum(state)\", default: \"new\"",
         "attribute Order.status has type enum(state), but no enum state is declared under enums."),
        ("default: \"new\"", "default: \"lost\"", "the default \"lost\" of attribute Order.status is not a value of enum order_status (new, paid, shipped)."),
        ("[new, paid, shipped]", "[new, paid, new]", "enum order_status lists the value \"new\" twice."),
        ("[new, paid, shipped]", "[]", "enum order_status has no values; list them in order, such as [pending, paid]."),
        ("renamed: { parcel: ups }", "renamed: { post: ups }", "enum carrier renames \"ups\" to \"post\", which is not among its values."),
        ("order_status: [", "_tm_status: [", "enum _tm_status is not a valid name"),
        ("order_status: [", "order: [", "enum order has the name of a table; PostgreSQL keeps types and tables under one name."),
        ("carrier: { values:", "carrier: { value:", "unknown key \"value\" in enum carrier"),
    ])
    func mistakesAreNamed(replace: String, with: String, expected: String) {
        let found = diagnostics(Self.yaml.replacing(replace, with: with))
        #expect(found.contains { $0.contains(expected) }, "\(found)")
    }
}
