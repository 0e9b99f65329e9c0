import EntityModel
@testable import MigrationEngine
import Testing
import TypedSQL

/// A mapping's source query is worked out once and rendered for each tenant's schema, with the
/// bound of a cursor over the rows after a first batch joined to its filter, or as its only
/// condition.
@Suite struct SourceQueryTests {
    @Test func itIsRenderedPerSchemaAndBoundedAfterARow() throws {
        let filtered = SourceQuery(head: "SELECT source.id FROM \(table: "recipe") AS source WHERE (type IN ('Meat', 'Fish'))", isFiltered: true,
                                   table: "recipe", readsEveryRow: false, columns: [:])
        #expect(filtered.sql().text(schema: "tenant_a")
            == #"SELECT source.id FROM "tenant_a"."recipe" AS source WHERE (type IN ('Meat', 'Fish')) ORDER BY source.id"#)
        #expect(filtered.sql(after: 42).text(schema: "tenant \"b\"")
            == #"SELECT source.id FROM "tenant ""b"""."recipe" AS source WHERE (type IN ('Meat', 'Fish')) AND source.id > 42 ORDER BY source.id"#)
        let every = SourceQuery(head: "SELECT source.id FROM \(table: "recipe") AS source", isFiltered: false, table: "recipe", readsEveryRow: true, columns: [:])
        #expect(every.sql(after: 7).text(schema: "t") == #"SELECT source.id FROM "t"."recipe" AS source WHERE source.id > 7 ORDER BY source.id"#)
    }

    @Test func eachMappingsQueryIsMadeOnce() throws {
        let queries = SourceQueries()
        var made: [String] = []
        func make(_ name: String) -> SourceQuery {
            made.append(name)
            return SourceQuery(head: "SELECT 1", isFiltered: false, table: name, readsEveryRow: true, columns: [:])
        }
        for _ in 0..<3 {
            #expect(queries.value(for: ["A"]) { make("A") }.table == "A")
            #expect(queries.value(for: ["A", "tags"]) { make("A+tags") }.table == "A+tags")
            #expect(queries.value(for: ["B"]) { make("B") }.table == "B")
        }
        #expect(made == ["A", "A+tags", "B"])
    }
}
