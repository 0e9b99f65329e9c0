import Testing
import TypedSQL

/// Numbers go into SQL as digits through interpolations that check them, not as raw text.
struct SQLNumbersTests {
    @Test func doublesAreDigitsOrConstants() {
        let sql: SQL = "\(double: 0.5), \(double: -3), \(double: 1e-05), \(double: .infinity), \(double: -.infinity), \(double: .nan)"
        #expect(sql.text(schema: "s") == "0.5, -3.0, 1e-05, 'Infinity', '-Infinity', 'NaN'")
    }

    @Test func decimalsAreDigitsOrConstants() {
        let sql: SQL = "\(decimal: "12.50"), \(decimal: "-1.5e-3"), \(decimal: "+7"), \(decimal: "1); DROP TABLE t; --")"
        #expect(sql.text(schema: "s") == "12.50, -1.5e-3, +7, '1); DROP TABLE t; --'::numeric")
    }
}
