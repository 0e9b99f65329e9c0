import EntityModel
import Testing

/// Mistakes of form in a version file, each reported with its line.
struct VersionFileDecoderTests {
    static let types = "string, int16, int32, int64, decimal, double, float, bool, date, uuid, binary, json, "
        + "or a PostgreSQL type such as varchar(255), numeric(12,2), timestamp(3), pg.date, text[] (see docs/ModelFormat.md)"
    static let notADate = "is not an ISO-8601 date such as \"2024-01-01T00:00:00Z\"."

    /// Each broken file and what it must report.
    static let brokenFiles: [BrokenFixture] = [
        BrokenFixture("UnknownType", [
            (6, "attribute Recipe.servings has unknown type \"integr\"; the types are: \(Self.types)."),
        ]),
        BrokenFixture("MissingType", [
            (5, "attribute Recipe.name has no type; add type: with one of: \(Self.types)."),
        ]),
        BrokenFixture("DefaultNotOfType", [
            (5, "the default \"abc\" of attribute Recipe.servings is not an int32 value."),
            (6, "the default abc of attribute Recipe.minutes is not an int32 value."),
            (7, "the default 1.5.2 of attribute Recipe.ratio is not a double value."),
            (8, "the default \"yes\" of attribute Recipe.vegan is not a bool value."),
            (9, "the default twelve of attribute Recipe.price is not a decimal value."),
            (10, "the default \"{not json\" of attribute Recipe.extra is not a JSON document."),
            (11, "the default \"***\" of attribute Recipe.blob is not base64-encoded bytes."),
        ]),
        BrokenFixture("DefaultOutOfRange", [
            (5, "the default 70000 of attribute Recipe.servings is out of range for int16 (-32768...32767)."),
            (6, "the default -2147483649 of attribute Recipe.count is out of range for int32 (-2147483648...2147483647)."),
        ]),
        BrokenFixture("DefaultInvalidUUID", [
            (5, "the default \"not-a-uuid\" of attribute Recipe.code is not a valid UUID such as \"123e4567-e89b-12d3-a456-426614174000\"."),
        ]),
        BrokenFixture("DefaultInvalidDate", [
            (5, "the default \"yesterday\" of attribute Recipe.createdAt \(Self.notADate)"),
            (6, "the default \"2024-13-01T00:00:00Z\" of attribute Recipe.updatedAt \(Self.notADate)"),
            (7, "the default \"2024-01-01 10:00:00\" of attribute Recipe.publishedAt \(Self.notADate)"),
        ]),
        BrokenFixture("UnknownKey", [
            (2, "unknown key \"description\" in a version file; the keys are: entities, sequences, enums, foreignObjects."),
            (5, "unknown key \"remark\" in entity Recipe; the keys are: attributes, relationships, table, renamingIdentifier, parent, abstract, checks, uniques, indexes, key, comment."),
            (7, "unknown key \"colour\" in attribute Recipe.name; the keys are: type, optional, default, defaultExpression, unique, indexed, renamingIdentifier, column, allowsNarrowing, check, comment."),
            (9, "unknown key \"ordered\" in relationship Recipe.tags; the keys are: destination, toMany, inverse, deleteRule, optional, minCount, maxCount, renamingIdentifier, column, onUpdate, deferred, indexed, joinOnDelete, joinTable, joinColumns, joinKey, joinOnUpdate."),
        ]),
        BrokenFixture("DuplicateKey", [
            (5, "the key \"name\" appears more than once in the same mapping."),
        ]),
        BrokenFixture("InvalidYAML", [
            (5, "this is not valid YAML: did not find expected ',' or '}'."),
        ]),
    ]

    @Test(arguments: brokenFiles)
    func mistakeOfFormIsReportedWithItsLine(_ broken: BrokenFixture) throws {
        try expectDiagnostics(ofBroken: broken.name, broken.expected)
    }

    @Test func wrongKindsOfValues() {
        #expect(diagnostics("entities: [Recipe]\n") == ["v1.yaml:1: entities must be a mapping of keys to values."])
        #expect(diagnostics("entities:\n  Recipe:\n    abstract: maybe\n") == ["v1.yaml:3: abstract of entity Recipe must be true or false."])
        #expect(diagnostics("entities:\n  Recipe:\n    attributes:\n      name: string\n") == [
            "v1.yaml:4: attribute Recipe.name must be a mapping of keys to values.",
        ])
        #expect(diagnostics("") == ["v1.yaml:1: the file is empty; a version file is a mapping with the key entities."])
        #expect(diagnostics("entity: {}\n") == [
            "v1.yaml:1: a version file needs the key entities.",
            "v1.yaml:1: unknown key \"entity\" in a version file; the keys are: entities, sequences, enums, foreignObjects.",
        ])
    }

    @Test func acceptedDefaults() throws {
        let model = try version("""
            entities:
              Sample:
                attributes:
                  a: { type: string, default: 42 }
                  b: { type: int64, default: -9223372036854775808 }
                  c: { type: decimal, default: "12.50" }
                  d: { type: float, default: .inf }
                  e: { type: bool, default: false }
                  f: { type: date, default: "2024-06-01T12:00:00+02:00" }
                  g: { type: uuid, default: "123E4567-E89B-12D3-A456-426614174000" }
                  h: { type: binary, default: "AQID" }
                  i: { type: json, default: { b: [1, true, null], a: "x" } }
                  j: { type: json, default: '{"b": 2, "a": 1}' }
                  k: { type: date, default: "2024-06-01" }
                  l: { type: string, default: ~ }
            """)
        let defaults = Dictionary(uniqueKeysWithValues: try #require(model.entity(named: "Sample")).attributes.map { ($0.name, $0.defaultValue) })
        #expect(defaults["a"] == .string("42"))
        #expect(defaults["b"] == .integer(Int64.min))
        #expect(defaults["c"] == .decimal("12.50"))
        #expect(defaults["d"] == .floatingPoint(.infinity))
        #expect(defaults["e"] == .bool(false))
        #expect(defaults["f"] == .date("2024-06-01T10:00:00Z"))
        #expect(defaults["g"] == .uuid("123e4567-e89b-12d3-a456-426614174000"))
        #expect(defaults["h"] == .binary([1, 2, 3]))
        #expect(defaults["i"] == .json(#"{"a":"x","b":[1,true,null]}"#))
        #expect(defaults["j"] == .json(#"{"a":1,"b":2}"#))
        #expect(defaults["k"] == .date("2024-06-01T00:00:00Z"))
        #expect(defaults["l"] == .some(nil))
    }
}
