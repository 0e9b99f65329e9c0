import EntityModel
import Testing

/// Issue 34: `key:` and `sequences:` in a version file: each form maps to the key and DDL a schema
/// has, writes back as read, hashes only where given, and mistakes are reported with their line.
struct EntityKeyTests {
    func version(_ yaml: String) throws -> ModelVersion {
        try ModelVersion(name: "v1", yaml: yaml, file: "K/v1.yaml")
    }

    func mistakes(_ yaml: String) -> [String] {
        do {
            _ = try version(yaml)
            return []
        } catch let error as ModelLoadError {
            return error.diagnostics.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    static let keyed = """
        entities:
          Account:
            key: { type: serial }
            attributes:
              name: { type: varchar(80) }
          Token:
            key: { type: uuid, defaultExpression: "gen_random_uuid()" }
            relationships:
              account: { destination: Account, inverse: tokens }
          Ticket:
            key: { type: integer, identity: always }
          Part:
            key: { type: bigint, defaultExpression: "nextval('part_seq'::regclass)" }
          Country:
            key: [code]
            attributes:
              code: { type: char(2) }
            relationships:
              addresses: { destination: Address, toMany: true, inverse: country }
          Address:
            relationships:
              country: { destination: Country, inverse: addresses, optional: false }
          Line:
            key: [part, lineNo]
            attributes:
              lineNo: { type: integer }
            relationships:
              part: { destination: Part, optional: false }
        sequences:
          part_seq: { increment: 50 }
        """

    @Test func eachKeyMapsToItsColumnsAndForeignKeysTakeTheKeysType() throws {
        let schema = try version(Self.keyed.replacingOccurrences(of: "    relationships:\n      account: { destination: Account, inverse: tokens }\n",
                                                                  with: "    relationships:\n      account: { destination: Account }\n"))
            .relationalSchema()
        let statements = schema.createStatements(inSchema: "t", quoting: .postgreSQL)
        for expected in [
            #"CREATE SEQUENCE "t"."part_seq" AS bigint START WITH 1 INCREMENT BY 50"#,
            #"    "id" serial NOT NULL,"#,
            #"    "id" uuid NOT NULL DEFAULT gen_random_uuid(),"#,
            #"    "id" integer GENERATED ALWAYS AS IDENTITY,"#,
            #"    "id" bigint NOT NULL DEFAULT nextval('"t"."part_seq"'::regclass),"#,
            #"    "account_id" integer,"#,
            #"    "country_id" character(2) NOT NULL"#,
            #"    "part_id" bigint NOT NULL"#,
            #"    CONSTRAINT "country_pkey" PRIMARY KEY ("code")"#,
            #"    CONSTRAINT "line_pkey" PRIMARY KEY ("part_id", "line_no")"#,
            // (Address.country is required: its inverse's nullify refuses the deletion, RequiredToOneDeleteRuleTests.)
            #"FOREIGN KEY ("country_id") REFERENCES "t"."country" ("code") ON DELETE NO ACTION"#,
        ] {
            #expect(statements.contains { $0.contains(expected) }, "missing \(expected) in\n\(statements.joined(separator: "\n"))")
        }
        #expect(statements.first?.hasPrefix("CREATE SEQUENCE") == true)
    }

    @Test func keysAndSequencesWriteBackAsReadAndHashOnlyWhereGiven() throws {
        let keyed = try version(Self.keyed.replacingOccurrences(of: ", inverse: tokens }", with: " }"))
        let reloaded = try version(keyed.yamlText())
        #expect(reloaded.versionHash == keyed.versionHash)
        #expect(reloaded.sequences == keyed.sequences)
        #expect(reloaded.entities.map(\.key) == keyed.entities.map(\.key))
        // The standard key written out is no key at all: the same hash as before keys existed.
        let plain = try version("entities:\n  Thing:\n    attributes:\n      name: { type: string }\n")
        let spelledOut = try version("entities:\n  Thing:\n    key: { type: bigint, identity: byDefault }\n    attributes:\n      name: { type: string }\n")
        #expect(spelledOut.versionHash == plain.versionHash)
        #expect(spelledOut.entity(named: "Thing")?.key == nil)
        // Each form changes the hash.
        let uuid = try version("entities:\n  Thing:\n    key: { type: uuid }\n    attributes:\n      name: { type: string }\n")
        let sequenced = try version("entities:\n  Thing:\n    attributes:\n      name: { type: string }\nsequences:\n  s: {}\n")
        #expect(Set([plain.versionHash, uuid.versionHash, sequenced.versionHash]).count == 3)
    }

    @Test func mistakesInKeysAndSequencesAreReportedWithTheirLines() {
        let cases: [(String, String)] = [
            ("entities:\n  A:\n    key: { type: uuid, identity: always }\n", "K/v1.yaml:3: the key of entity A is an identity, so its type is smallint, integer or bigint, not uuid."),
            ("entities:\n  A:\n    key: { type: bigserial, defaultExpression: \"now()\" }\n", "K/v1.yaml:3: the key of entity A is generated (serial or identity); it takes no defaultExpression."),
            ("entities:\n  A:\n    key: { type: money }\n", "K/v1.yaml:3: the key of entity A has unknown type \"money\""),
            ("entities:\n  A:\n    key: [code]\n", "K/v1.yaml:2: the key of entity A names code, which is not an attribute or a to-one of A holding a key."),
            ("entities:\n  A:\n    key: [code]\n    attributes:\n      code: { type: string, optional: true }\n",
             "K/v1.yaml:5: attribute A.code is in the key of entity A, so it cannot be optional."),
            ("entities:\n  A: {}\n  B:\n    parent: A\n    key: { type: uuid }\n", "K/v1.yaml:3: entity B has a key, but only a root entity does"),
            ("entities:\n  A:\n    key: [x, y]\n    attributes:\n      x: { type: string }\n      y: { type: string }\n  B:\n    relationships:\n      a: { destination: A }\n",
             "K/v1.yaml:9: relationship B.a refers to A, whose key has 2 columns (x, y)"),
            ("entities:\n  A:\n    key: { type: bigint, defaultExpression: \"nextval('a_seq'::regclass)\" }\n",
             "the default of the key of entity A draws from sequence a_seq, which the version does not declare; add it under sequences:."),
            ("entities:\n  A: {}\nsequences:\n  a: {}\n", "K/v1.yaml:4: sequence a has the name of a table"),
            ("entities:\n  A: {}\nsequences:\n  s: { increment: 0 }\n", "K/v1.yaml:4: the increment of sequence s must not be zero."),
            ("entities:\n  A: {}\nsequences:\n  s: { type: text }\n", "K/v1.yaml:4: the type of sequence s is smallint, integer or bigint, not \"text\"."),
        ]
        for (yaml, expected) in cases {
            let found = mistakes(yaml)
            #expect(found.contains { $0.contains(expected) }, "\(yaml)\n→ \(found)")
        }
    }
}
