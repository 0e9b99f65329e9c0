import Testing
import TypedSQL

/// Issue 32: an alias the tool gives a row source is typed: bare when it is a plain name, as the
/// plans have always written it, and quoted at each use alike otherwise.
struct SQLAliasTests {
    @Test func aPlainNameIsWrittenBare() {
        let alias = SQLAlias("source").appending("mainCategory")
        let sql: SQL = "LEFT JOIN \(table: "category") AS \(alias: alias) ON \(alias: alias).id = source.category_id"
        #expect(sql.text(schema: "t") == #"LEFT JOIN "t"."category" AS source_mainCategory ON source_mainCategory.id = source.category_id"#)
    }

    @Test func anyOtherNameIsQuotedAtEachUse() {
        let alias = SQLAlias("source").appending("x\" y")
        let sql: SQL = "\(alias: alias).id = \(alias: alias).id"
        #expect(sql.text(schema: "t") == #""source_x"" y".id = "source_x"" y".id"#)
        #expect(("\(alias: "tm_key_0")" as SQL).text(schema: "t") == "tm_key_0")
        #expect(("\(alias: "0x")" as SQL).text(schema: "t") == #""0x""#)
    }
}
