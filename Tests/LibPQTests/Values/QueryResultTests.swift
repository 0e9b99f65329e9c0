import Foundation
import LibPQ
import PostgresTestSupport
import Testing

@Suite struct QueryResultTests {
    @Test func decodesByColumnNameAndByIndex() async throws {
        try await TestPostgres.withDatabase { connection in
            let result = try connection.execute("SELECT 1::int4 AS id, 'one'::text AS \"Name\", NULL::text AS note, 2.5::float8 AS id")
            #expect(result.rowCount == 1)
            #expect(result.columnCount == 4)
            #expect(result.columnNames == ["id", "Name", "note", "id"])
            let row = try #require(result.first)
            #expect(try row.decode(Int32.self, column: "id") == 1, "the first of two same-named columns")
            #expect(try row.decode(Double.self, at: 3) == 2.5)
            #expect(try row.decode(String.self, column: "Name") == "one")
            #expect(try row.decode(String.self, at: 1) == "one")
            #expect(try row.decode(String?.self, column: "note") == nil)
            #expect(row["Name"] == "one")
            #expect(row[0] == "1")
            #expect(row["note"] == nil)
            #expect(row.isNull(at: 2))
            #expect(!row.isNull(at: 1))
            #expect(result.columnIndex(named: "Name") == 1)
            #expect(result.columnIndex(named: "name") == nil, "names are exact, not case-folded")

            let unknown = #expect(throws: RowDecodingError.self) { try row.decode(String.self, column: "name") }
            #expect(unknown?.column == "name")
            #expect(unknown?.description.contains("no such column") == true)
            let outOfRange = #expect(throws: RowDecodingError.self) { try row.decode(String.self, at: 4) }
            #expect(outOfRange?.column == "#4")
        }
    }

    @Test func nullIntoANonOptionalNamesTheColumn() async throws {
        try await TestPostgres.withDatabase { connection in
            let row = try #require(try connection.execute("SELECT NULL::text AS missing_value").first)
            func check<T: PQDecodable>(_ type: T.Type, sourceLocation: SourceLocation = #_sourceLocation) {
                let error = #expect(throws: RowDecodingError.self, sourceLocation: sourceLocation) { try row.decode(T.self, column: "missing_value") }
                #expect(error?.column == "missing_value", sourceLocation: sourceLocation)
                #expect(error?.reason == "the value is NULL", sourceLocation: sourceLocation)
                #expect(error?.description == "cannot decode column \"missing_value\" as \(T.self): the value is NULL", sourceLocation: sourceLocation)
            }
            check(String.self)
            check(Int16.self)
            check(Int32.self)
            check(Int64.self)
            check(Int.self)
            check(Double.self)
            check(Float.self)
            check(Bool.self)
            check(Decimal.self)
            check(Date.self)
            check(UUID.self)
            check(Data.self)
            check(PQJSON.self)
        }
    }

    @Test func invalidTextIsADecodingErrorNotACrash() async throws {
        try await TestPostgres.withDatabase { connection in
            let row = try #require(try connection.execute("SELECT 'abc'::text AS word, 40000 AS big, 'maybe'::text AS flag").first)
            let notInt = #expect(throws: RowDecodingError.self) { try row.decode(Int.self, column: "word") }
            #expect(notInt?.reason == "\"abc\" is not a valid Int")
            let overflow = #expect(throws: RowDecodingError.self) { try row.decode(Int16.self, column: "big") }
            #expect(overflow?.column == "big")
            #expect(throws: RowDecodingError.self) { try row.decode(Bool.self, column: "flag") }
            #expect(throws: RowDecodingError.self) { try row.decode(UUID.self, column: "word") }
            #expect(throws: RowDecodingError.self) { try row.decode(Date.self, column: "word") }
            #expect(throws: RowDecodingError.self) { try row.decode(Data.self, column: "word") }
            #expect(throws: RowDecodingError.self) { try row.decode(Double.self, column: "word") }
            #expect(throws: RowDecodingError.self) { try row.decode(Decimal.self, column: "word") }
            #expect(throws: RowDecodingError.self) { try connection.execute("SELECT 'NaN'::numeric").first?.decode(Decimal.self, at: 0) }
        }
    }

    @Test func iteratesRowsAndReportsCounts() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE item (id int PRIMARY KEY, label text)")
            let insert = try connection.execute("INSERT INTO item SELECT g, 'item ' || g FROM generate_series(1, 5) g")
            #expect(insert.commandTag == "INSERT 0 5")
            #expect(insert.affectedRows == 5)
            #expect(insert.rowCount == 0)
            let update = try connection.execute("UPDATE item SET label = upper(label) WHERE id > $1", [3])
            #expect(update.commandTag == "UPDATE 2")
            #expect(update.affectedRows == 2)

            let result = try connection.execute("SELECT id, label FROM item ORDER BY id")
            #expect(result.rowCount == 5)
            #expect(result.affectedRows == 5)
            var seen: [(Int, String)] = []
            for row in result { seen.append((try row.decode(Int.self, column: "id"), try row.decode(String.self, column: "label"))) }
            #expect(seen.map(\.0) == [1, 2, 3, 4, 5])
            #expect(seen.map(\.1) == ["item 1", "item 2", "item 3", "ITEM 4", "ITEM 5"])
            #expect(try result[4].decode(String.self, at: 1) == "ITEM 5")
            #expect(result[2].index == 2)

            let empty = try connection.execute("SELECT id FROM item WHERE false")
            #expect(empty.rowCount == 0)
            #expect(empty.first == nil)
            #expect(Array(empty).isEmpty)
            #expect(empty.columnNames == ["id"])
        }
    }

    /// Parameters never become SQL text.
    @Test func parametersAreNotInterpolated() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.fixtureScript("CREATE TABLE victim (id int); INSERT INTO victim VALUES (1)")
            let hostile = "x'); DROP TABLE victim; --"
            #expect(try connection.scalar("SELECT $1::text", [hostile], as: String.self) == hostile)
            #expect(try connection.scalar("SELECT count(*) FROM victim", as: Int.self) == 1)
            #expect(throws: PQError.self) { try connection.execute("SELECT 1; SELECT 2") }
        }
    }
}
