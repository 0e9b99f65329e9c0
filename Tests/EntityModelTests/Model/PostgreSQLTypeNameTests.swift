import EntityModel
import Testing

/// Issue 34: a version file names PostgreSQL's own types in `type:` and SQL expressions in
/// `defaultExpression:`; every spelling of a type is one type; the model's own types keep their
/// meaning, their DDL and their hash.
struct PostgreSQLTypeNameTests {
    /// One attribute `value` of `type` (with `more` keys) on an entity `Thing`.
    func attribute(_ type: String, _ more: String = "") throws -> Attribute {
        let version = try ModelVersion(name: "v1", yaml: "entities:\n  Thing:\n    attributes:\n      value: { type: \(type)\(more) }\n", file: "T/v1.yaml")
        return try #require(version.entity(named: "Thing")?.attribute(named: "value"))
    }

    @Test func spellingsOfOneTypeAreOneType() throws {
        let cases: [(String, String, AttributeType)] = [
            ("varchar(255)", "character varying(255)", .string), ("\"character varying (255)\"", "character varying(255)", .string),
            ("varchar", "character varying", .string), ("char(2)", "character(2)", .string), ("character", "character(1)", .string),
            ("\"numeric(12, 2)\"", "numeric(12,2)", .decimal), ("decimal(8)", "numeric(8,0)", .decimal),
            ("timestamp(3)", "timestamp(3) without time zone", .string), ("timestamp", "timestamp without time zone", .string),
            ("timestamptz(3)", "timestamp(3) with time zone", .date), ("\"timestamp(0) with time zone\"", "timestamp(0) with time zone", .date),
            ("time", "time without time zone", .string), ("timetz", "time with time zone", .string),
            ("pg.date", "date", .string), ("pg.json", "json", .string), ("interval", "interval", .string), ("inet", "inet", .string),
            ("\"text[]\"", "text[]", .string), ("\"int[]\"", "integer[]", .string), ("\"varchar(20)[]\"", "character varying(20)[]", .string),
        ]
        for (written, sqlType, kind) in cases {
            let attribute = try attribute(written)
            #expect(attribute.columnType?.rawValue == sqlType, "\(written)")
            #expect(attribute.sqlType.rawValue == sqlType, "\(written)")
            #expect(attribute.type == kind, "\(written)")
        }
    }

    @Test func postgreSQLNamesOfTheModelsTypesAreTheModelsTypes() throws {
        for (written, type) in [("bigint", AttributeType.int64), ("int4", .int32), ("smallint", .int16), ("text", .string), ("jsonb", .json),
                                ("bytea", .binary), ("boolean", .bool), ("\"double precision\"", .double), ("real", .float),
                                ("numeric", .decimal), ("timestamptz", .date)] {
            let attribute = try attribute(written)
            #expect(attribute.type == type && attribute.columnType == nil, "\(written)")
            #expect(try attribute.hashing == self.attribute(type.rawValue).hashing, "\(written)")
        }
        // The model's names keep their meaning: `date` is a point in time, `json` is jsonb, `float` is real.
        #expect(try attribute("date").sqlType == .timestamptz)
        #expect(try attribute("json").sqlType == .jsonb)
        #expect(try attribute("float").sqlType == .real)
    }

    @Test func typesOutOfRangeOrUnknownAreRefusedWithTheirLine() {
        for written in ["varchar(0)", "\"numeric(3,4)\"", "timestamp(7)", "citext", "\"text[][]x\"", "money"] {
            #expect(throws: ModelLoadError.self, "\(written)") { try attribute(written) }
        }
        do {
            _ = try attribute("varchar(0)")
        } catch {
            #expect("\(error)".contains("T/v1.yaml:4: attribute Thing.value has unknown type \"varchar(0)\""), "\(error)")
        }
    }

    @Test func defaultsRenderWithTheColumnsType() throws {
        let quoter = PlainQuoter()
        // A literal without a cast, as a hand-written DEFAULT is: PostgreSQL gives it the column's type.
        #expect(DefaultValue.string("DE").sqlExpression(for: SQLType(rawValue: "character(2)"), quoting: quoter) == "'DE'")
        #expect(DefaultValue.string("{}").sqlExpression(for: SQLType(rawValue: "text[]"), quoting: quoter) == "'{}'")
        #expect(DefaultValue.string("Other").sqlExpression(for: .text, quoting: quoter) == "'Other'")
        #expect(DefaultValue.expression("now()").sqlExpression(for: .timestamptz, quoting: quoter) == "now()")
        let country = try attribute("char(2)", ", default: DE")
        #expect(country.defaultValue == .string("DE"))
        let price = try attribute("\"numeric(12,2)\"", ", default: \"0.00\"")
        #expect(price.defaultValue == .decimal("0.00"))
    }

    @Test func defaultExpressionsAreHeldAsWrittenAndHashed() throws {
        let created = try attribute("date", ", defaultExpression: now()")
        #expect(created.defaultValue == .expression("now()"))
        #expect(try created.hashing != attribute("date", ", defaultExpression: CURRENT_TIMESTAMP").hashing)
        #expect(throws: ModelLoadError.self) { try attribute("date", ", default: \"2024-01-01\", defaultExpression: now()") }
        #expect(throws: ModelLoadError.self) { try attribute("date", ", defaultExpression: \"\"") }
    }

    @Test func aVersionWithPostgreSQLTypesIsWrittenAndReadBackUnchanged() throws {
        let yaml = """
            entities:
              Order:
                table: Order
                attributes:
                  email: { type: varchar(255), unique: true }
                  country: { type: char(2), default: DE }
                  placedOn: { type: pg.date, defaultExpression: CURRENT_DATE }
                  total: { type: "numeric(12,2)", default: "0.00", optional: true }
                  createdAt: { type: timestamp(3), defaultExpression: CURRENT_TIMESTAMP, column: createdAt }
                  tags: { type: "text[]", default: "{}" }
                  code: { type: uuid, defaultExpression: gen_random_uuid() }
                  settings: { type: pg.json, optional: true }
            """
        let version = try ModelVersion(name: "v1", yaml: yaml, file: "Shop/v1.yaml")
        let written = version.yamlText()
        let reread = try ModelVersion(name: "v1", yaml: written, file: "Shop/v1.yaml")
        #expect(reread == version && reread.versionHash == version.versionHash, "\(written)")
        #expect(written.contains("placedOn: { type: pg.date, defaultExpression: \"CURRENT_DATE\" }"), "\(written)")
        #expect(written.contains("total: { type: \"numeric(12,2)\", optional: true, default: \"0.00\" }"), "\(written)")
        let ddl = version.relationalSchema().createStatements(inSchema: "s", quoting: PlainQuoter()).joined(separator: "\n")
        for part in ["\"email\" character varying(255) NOT NULL", "\"country\" character(2) NOT NULL DEFAULT 'DE'",
                     "\"placed_on\" date NOT NULL DEFAULT CURRENT_DATE", "\"total\" numeric(12,2) DEFAULT 0.00",
                     "\"createdAt\" timestamp(3) without time zone NOT NULL DEFAULT CURRENT_TIMESTAMP", "\"tags\" text[] NOT NULL DEFAULT '{}'",
                     "\"code\" uuid NOT NULL DEFAULT gen_random_uuid()", "\"settings\" json"] {
            #expect(ddl.contains(part), "\(part) not in\n\(ddl)")
        }
    }
}

private extension Attribute {
    /// What the version hash sees of an attribute.
    var hashing: String {
        (try? ModelVersion(name: "v", entities: [Entity(name: "Thing", attributes: [renamed("value")])]).versionHash) ?? ""
    }

    func renamed(_ name: String) -> Attribute {
        var copy = self
        copy.name = name
        copy.location = nil
        return copy
    }
}
