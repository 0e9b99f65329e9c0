@testable import MigrationEngine
import Testing

/// Where a mapping expression's placeholders are: braces in the SQL itself, never in its quoted
/// text, read as PostgreSQL's lexer reads it (no server needed).
@Suite("PlaceholderScan")
struct PlaceholderScanTests {
    static func names(_ sql: String) -> [String] {
        PlaceholderScan.placeholders(in: sql).map { String(sql[$0]) }
    }

    @Test(arguments: [
        ("{schema}.t", ["{schema}"]),
        ("a || '{x}' || {source:Item}", ["{source:Item}"]),
        ("'it''s {x}' || {enum:e}", ["{enum:e}"]),
        ("E'\\'{x}' || {schema}", ["{schema}"]),          // a backslash-escaped quote inside E''
        ("e'\\\\' || {schema}", ["{schema}"]),            // E'' ending in an escaped backslash
        ("note'{x}'", []),                               // (not an E'' string: a name before the quote)
        ("\"{a}\" || \"x\"\"{b}\" || {schema}", ["{schema}"]),
        ("$${x}$$ || $tag${y}$tag$ || {schema}", ["{schema}"]),
        ("$1 || {schema} || $2", ["{schema}"]),          // parameters are no dollar quotes
        ("x -- {x}\n|| {schema}", ["{schema}"]),
        ("x /* {x} */ || {schema}", ["{schema}"]),
        ("{schema} || '{unterminated", ["{schema}"]),
        ("{a} {b", ["{a}"]),
    ])
    func findsThePlaceholdersOutsideQuotedText(sql: String, expected: [String]) {
        #expect(Self.names(sql) == expected, "\(sql)")
    }

    /// The online mode's test of whether an expression reads other rows sees placeholders as the
    /// compiler does: an array literal's braces read nothing (they made such a mapping's step
    /// catch up less finely before), a table placeholder or a subquery does.
    @Test func onlyPlaceholdersInTheSQLReadOtherRows() {
        #expect(!MigrationStep.readsOtherRows("source.tag = ANY ('{a,b}'::text[])"))
        #expect(!MigrationStep.readsOtherRows("'{\"a\": 1}'::jsonb ->> 'a'"))
        #expect(MigrationStep.readsOtherRows("(SELECT count(*) FROM {source:Item} i WHERE i.id = source.id)"))
        #expect(MigrationStep.readsOtherRows("{schema}.f(source.id)"))
        #expect(MigrationStep.readsOtherRows("(select 1)"))
    }
}
