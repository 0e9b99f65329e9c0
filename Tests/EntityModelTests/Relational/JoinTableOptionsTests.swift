import EntityModel
import Testing
import TypedSQL

/// Issue 34: a many-to-many's join table as a framework writes it (Prisma's implicit
/// `_CategoryToPost`: columns `A` and `B`, a unique index on both instead of a primary key, an
/// index on `B`, foreign keys `ON DELETE CASCADE ON UPDATE CASCADE`), named by the owning to-many;
/// and table and column names that start with `_` (only `_tm_` is the tool's).
struct JoinTableOptionsTests {
    static let prisma = """
        entities:
          Category:
            table: Category
            key: { type: serial }
            relationships:
              posts: { destination: Post, toMany: true, inverse: categories, joinTable: _CategoryToPost, joinColumns: [A, B], joinKey: uniqueIndex, joinOnUpdate: cascade }
          Post:
            table: Post
            key: { type: text }
            relationships:
              categories: { destination: Category, toMany: true, inverse: posts }
          PrismaMigration:
            table: _prisma_migrations
            key: { type: "character varying(36)" }
            attributes:
              checksum: { type: varchar(64), column: _checksum }
        """

    @Test func aJoinTableTakesItsNameColumnsKeyAndUpdateRule() throws {
        let schema = try version(Self.prisma).relationalSchema()
        let join = try #require(schema.joinTable(forEntity: "Category", relationship: "posts"))
        #expect(join.name == "_CategoryToPost")
        #expect(join.columns.map(\.name) == ["A", "B"])
        let statements = schema.createStatements(inSchema: "t", quoting: .postgreSQL).filter { $0.contains("_CategoryToPost") }
        for expected in [
            "CREATE TABLE \"t\".\"_CategoryToPost\" (\n    \"A\" integer NOT NULL,\n    \"B\" text NOT NULL\n)",
            "FOREIGN KEY (\"A\") REFERENCES \"t\".\"Category\" (\"id\") ON DELETE CASCADE ON UPDATE CASCADE",
            "FOREIGN KEY (\"B\") REFERENCES \"t\".\"Post\" (\"id\") ON DELETE CASCADE ON UPDATE CASCADE",
            "CREATE UNIQUE INDEX \"_CategoryToPost_A_B_key\" ON \"t\".\"_CategoryToPost\" (\"A\", \"B\")",
            "CREATE INDEX \"_CategoryToPost_B_idx\" ON \"t\".\"_CategoryToPost\" (\"B\")",
        ] {
            #expect(statements.contains { $0.contains(expected) }, "missing \(expected) in\n\(statements.joined(separator: "\n"))")
        }
        #expect(!statements.contains { $0.contains("PRIMARY KEY") })
        #expect(schema.tables.map(\.name).contains("_prisma_migrations"))
        #expect(schema.tables.first { $0.name == "_prisma_migrations" }?.column(named: "_checksum") != nil)
    }

    @Test func theOptionsWriteBackAsReadAndHashOnlyWhereGiven() throws {
        let model = try version(Self.prisma)
        #expect(model.yamlText().contains(
            "      posts: { destination: Post, toMany: true, inverse: categories, joinTable: _CategoryToPost, joinColumns: [A, B], joinKey: uniqueIndex, joinOnUpdate: cascade }\n"))
        #expect(model.yamlText().contains("    table: _prisma_migrations\n"))
        #expect(try version(model.yamlText()).versionHash == model.versionHash)
        let plain = try version(Self.prisma.replacingOccurrences(of: ", joinTable: _CategoryToPost, joinColumns: [A, B], joinKey: uniqueIndex, joinOnUpdate: cascade", with: ""))
        #expect(plain.relationalSchema().joinTable(forEntity: "Category", relationship: "posts")?.name == "category_posts")
        for option in [", joinTable: _CategoryToPost", ", joinColumns: [A, B]", ", joinKey: uniqueIndex", ", joinOnUpdate: cascade"] {
            let one = try version(Self.prisma.replacingOccurrences(of: ", joinTable: _CategoryToPost, joinColumns: [A, B], joinKey: uniqueIndex, joinOnUpdate: cascade", with: option))
            #expect(one.versionHash != plain.versionHash, "\(option)")
        }
    }

    @Test func mistakesInTheOptionsAreReportedWithTheirLines() {
        #expect(diagnostics("""
            entities:
              A:
                relationships:
                  bs: { destination: B, toMany: true, inverse: as, joinColumns: [x] }
                  c: { destination: B, joinTable: ab }
              B:
                relationships:
                  as: { destination: A, toMany: true, inverse: bs, joinTable: other, joinKey: primary }
            """) == [
                "v1.yaml:4: relationship A.bs has joinColumns [x]; give two different column names: the owner's, then the destination's.",
                "v1.yaml:5: relationship A.c has joinTable, but it holds no join table: joinTable, joinColumns, joinKey and joinOnUpdate go on the to-many that owns one (of two inverse to-manys, the side whose (entity, relationship) sorts first).",
                "v1.yaml:8: relationship B.as has joinTable, but it holds no join table: joinTable, joinColumns, joinKey and joinOnUpdate go on the to-many that owns one (of two inverse to-manys, the side whose (entity, relationship) sorts first).",
                "v1.yaml:8: relationship B.as has unknown joinKey \"primary\"; the keys are: primaryKey, uniqueIndex.",
            ])
    }

    @Test func onlyNamesStartingWithTmAreTheTools() {
        #expect(diagnostics("""
            entities:
              A:
                table: _tm_a
                attributes:
                  x: { type: string, column: _tm_x }
                relationships:
                  bs: { destination: B, toMany: true, joinTable: _tm_ab, joinColumns: [_a, _tm_b] }
              B:
                table: _b
            """) == [
                "v1.yaml:2: table name \"_tm_a\" of entity A uses a reserved name: names starting with \"_tm_\" belong to TenantMigrator.",
                "v1.yaml:5: column \"_tm_x\" of attribute A.x uses a reserved name: names starting with \"_tm_\" belong to TenantMigrator.",
                "v1.yaml:7: join column \"_tm_b\" of relationship A.bs uses a reserved name: names starting with \"_tm_\" belong to TenantMigrator.",
                "v1.yaml:7: join table \"_tm_ab\" of relationship A.bs uses a reserved name: names starting with \"_tm_\" belong to TenantMigrator.",
            ])
    }
}
