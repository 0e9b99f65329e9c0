import Foundation
import LibPQ
import PostgresTestSupport
import Testing

@Suite struct ConnectionCopyTests {
    struct Boom: Error, Equatable {}

    /// 100,000 rows with NULLs, non-ASCII text and every character COPY must escape.
    static let rows: [(id: Int, text: String?, number: Int64?)] = (1...100_000).map { id in
        let text: String?
        switch id % 11 {
        case 0: text = nil
        case 1: text = "row \(id) Grüße 😀 日本"
        case 2: text = "tab\t\(id)\tend"
        case 3: text = "line\n\(id)\r\nend"
        case 4: text = "back\\slash \\N \\t \(id)\\"
        case 5: text = ""
        case 6: text = "\\."
        case 7: text = "\\N"
        case 8: text = "quote ' \" \u{1}\u{7f} \(id)"
        default: text = String(repeating: "é", count: id % 50)
        }
        let number: Int64? = id % 13 == 0 ? nil : Int64(id) * 92_233_720_368 * (id % 2 == 0 ? 1 : -1)
        return (id, text, number)
    }

    static func expectedFields(_ row: (id: Int, text: String?, number: Int64?)) -> [String?] {
        [String(row.id), row.text, row.number.map { String($0) }]
    }

    static let checksumQuery = """
        SELECT md5(string_agg(
            id::text || ':' || coalesce(octet_length(t)::text || ':' || t, 'N') || ':' || coalesce(n::text, 'N'),
            E'\\n' ORDER BY id))
        FROM copy_rows
        """

    static func swiftChecksum() -> String {
        var text = ""
        for (index, row) in rows.enumerated() {
            if index > 0 { text += "\n" }
            text += "\(row.id):"
            text += row.text.map { "\($0.utf8.count):\($0)" } ?? "N"
            text += ":" + (row.number.map { String($0) } ?? "N")
        }
        return MD5.hex(text)
    }

    @Test func md5MatchesKnownDigests() {
        #expect(MD5.hex("") == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(MD5.hex("The quick brown fox jumps over the lazy dog") == "9e107d9d372bb6826bd81d3542a419d6")
        #expect(MD5.hex(String(repeating: "a", count: 1000)) == "cabe45dcc9ae5b66ba86600cca6b8ba8")
    }

    @Test func copyInAndOutOf100000RowsKeepsEveryRow() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE copy_rows (id int PRIMARY KEY, t text, n bigint)")
            var writtenRows = 0
            let copied = try connection.copyIn(unsafeSQL: "COPY copy_rows (id, t, n) FROM STDIN") { writer in
                for row in Self.rows {
                    if row.id % 2 == 0 {
                        try writer.writeRow(Self.expectedFields(row))
                    } else {
                        writer.append(row.id)
                        writer.append(row.text)
                        writer.append(row.number)
                        try writer.endRow()
                    }
                }
                writtenRows = writer.rowCount
            }
            #expect(copied == 100_000)
            #expect(writtenRows == 100_000)
            #expect(try connection.scalar("SELECT count(*) FROM copy_rows", as: Int.self) == 100_000)
            #expect(try connection.scalar("SELECT count(*) FROM copy_rows WHERE t IS NULL", as: Int.self) == Self.rows.filter { $0.text == nil }.count)
            #expect(try connection.scalar("SELECT count(*) FROM copy_rows WHERE t = '\\N'", as: Int.self) == Self.rows.filter { $0.text == "\\N" }.count)

            // Checksum on the server against the same computation in Swift.
            let serverChecksum: String = try connection.scalar(Self.checksumQuery)
            #expect(serverChecksum == Self.swiftChecksum())

            // Every row back through COPY TO STDOUT and the parser.
            var parsed: [[String?]] = []
            parsed.reserveCapacity(100_000)
            var chunks = 0
            let parser = CopyTextParser()
            let copiedOut = try connection.copyOut(unsafeSQL: "COPY (SELECT id, t, n FROM copy_rows ORDER BY id) TO STDOUT") { chunk in
                chunks += 1
                #expect(chunk.last == UInt8(ascii: "\n"), "chunks hold whole rows")
                parser.parseRows(chunk) { parsed.append($0) }
            }
            #expect(copiedOut == 100_000)
            #expect(chunks > 1)
            #expect(parsed.count == 100_000)
            var mismatches = 0
            for (row, fields) in zip(Self.rows, parsed) where Self.expectedFields(row) != fields {
                if mismatches < 5 { Issue.record("row \(row.id): expected \(Self.expectedFields(row)), got \(fields)") }
                mismatches += 1
            }
            #expect(mismatches == 0)
        }
    }

    @Test func throwingBodyAbortsTheCopyAndInsertsNothing() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE copy_rows (id int, t text)")
            #expect(throws: Boom()) {
                // A small buffer, so that many rows reach the server before the abort.
                try connection.copyIn(unsafeSQL: "COPY copy_rows FROM STDIN", bufferSize: 1024) { writer in
                    for id in 0..<10_000 { try writer.writeRow([String(id), "row \(id)"]) }
                    throw Boom()
                }
            }
            #expect(connection.isHealthy)
            #expect(try connection.scalar("SELECT count(*) FROM copy_rows", as: Int.self) == 0)
            // The connection is usable for another COPY.
            let copied = try connection.copyIn(unsafeSQL: "COPY copy_rows FROM STDIN") { try $0.writeRow(["1", "one"]) }
            #expect(copied == 1)
        }
    }

    @Test func badDataFailsWithTheServerErrorAndInsertsNothing() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE copy_rows (id int, t text)")
            let sql = "COPY copy_rows FROM STDIN"
            let error = try expectPostgresError {
                try connection.copyIn(unsafeSQL: sql) { writer in
                    try writer.writeRow(["1", "fine"])
                    try writer.writeRow(["not a number", "bad"])
                }
            }
            #expect(error.sqlState == .invalidTextRepresentation)
            #expect(error.statement == sql)
            #expect(error.context?.contains("line 2") == true)
            #expect(try connection.scalar("SELECT count(*) FROM copy_rows", as: Int.self) == 0)
        }
    }

    @Test func copyOfAMissingTableOrANonCopyStatementFails() async throws {
        try await TestPostgres.withDatabase { connection in
            let missing = try expectPostgresError { try connection.copyIn(unsafeSQL: "COPY nowhere FROM STDIN") { _ in } }
            #expect(missing.sqlState == .undefinedTable)
            let notCopy = try expectPostgresError { try connection.copyIn(unsafeSQL: "SELECT 1") { _ in } }
            #expect(notCopy.kind == .client)
            let notCopyOut = try expectPostgresError { try connection.copyOut(unsafeSQL: "SELECT 1") { _ in } }
            #expect(notCopyOut.kind == .client)
            #expect(try connection.scalar("SELECT 1", as: Int.self) == 1)
        }
    }

    @Test func typedValuesAreWrittenInTextForm() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE typed (u uuid, d timestamptz, b bytea, f bool, x float8, m numeric, j jsonb, s int2, l int8)")
            let id = UUID()
            let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
            let bytes = Data((0...255).map { UInt8($0) })
            let decimal = Decimal(string: "-12345678901234567890.123456789")!
            try connection.copyIn(unsafeSQL: "COPY typed FROM STDIN") { writer in
                writer.append(id)
                writer.append(date)
                writer.append(bytes)
                writer.append(true)
                writer.append(-2.5)
                writer.append(decimal)
                writer.append(try PQJSON(encoding: ["k": "v\t\\"]))
                writer.append(Int16.min)
                writer.append(Int64.min)
                try writer.endRow()
                for _ in 0..<9 { writer.append(nil as String?) }
                try writer.endRow()
            }
            let result = try connection.execute("SELECT * FROM typed ORDER BY u NULLS LAST")
            #expect(result.rowCount == 2)
            let row = result[0]
            #expect(try row.decode(UUID.self, column: "u") == id)
            #expect(try row.decode(Date.self, column: "d") == date)
            #expect(try row.decode(Data.self, column: "b") == bytes)
            #expect(try row.decode(Bool.self, column: "f") == true)
            #expect(try row.decode(Double.self, column: "x") == -2.5)
            #expect(try row.decode(Decimal.self, column: "m") == decimal)
            #expect(try row.decode(PQJSON.self, column: "j").decode([String: String].self) == ["k": "v\t\\"])
            #expect(try row.decode(Int16.self, column: "s") == Int16.min)
            #expect(try row.decode(Int64.self, column: "l") == Int64.min)
            for column in 0..<9 { #expect(result[1].isNull(at: column)) }
        }
    }

    @Test func integersOfEveryWidthAreWrittenExactly() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE numbers (a numeric, b numeric, c numeric, d numeric, e numeric, f numeric, g numeric, h numeric)")
            try connection.copyIn(unsafeSQL: "COPY numbers FROM STDIN") { writer in
                writer.append(Int16.max)
                writer.append(Int32.min)
                writer.append(Int64.max)
                writer.append(Int.min)
                writer.append(UInt8(200))
                writer.append(UInt64.max)
                writer.append(0)
                writer.append(Int32?.none)
                try writer.endRow()
            }
            let row = try #require(try connection.execute("SELECT a::text, b::text, c::text, d::text, e::text, f::text, g::text, h::text FROM numbers").first)
            let texts = try (0..<8).map { try row.decode(String?.self, at: $0) }
            #expect(texts == ["32767", "-2147483648", "9223372036854775807", "-9223372036854775808", "200", "18446744073709551615", "0", nil])
        }
    }

    @Test func rowsLargerThanTheBufferAreSentWhole() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE big (id int, body text)")
            let body = String(repeating: "x\\y\t😀", count: 100_000)
            let copied = try connection.copyIn(unsafeSQL: "COPY big FROM STDIN", bufferSize: 16) { writer in
                for id in 0..<3 {
                    writer.append(id)
                    writer.append(body)
                    try writer.endRow()
                }
            }
            #expect(copied == 3)
            #expect(try connection.scalar("SELECT count(*) FROM big WHERE body = $1", [body], as: Int.self) == 3)
        }
    }

    @Test func copyOutStreamsWholeRowChunks() async throws {
        try await TestPostgres.withDatabase { connection in
            var chunkSizes: [Int] = []
            var total = 0
            let count = try connection.copyOut(unsafeSQL: "COPY (SELECT g, repeat('x', g % 17) FROM generate_series(1, 5000) g) TO STDOUT", chunkSize: 1000) { chunk in
                chunkSizes.append(chunk.count)
                #expect(chunk.last == UInt8(ascii: "\n"))
                CopyTextParser().parseRows(chunk) { fields in
                    total += 1
                    #expect(fields.count == 2)
                }
            }
            #expect(count == 5000)
            #expect(total == 5000)
            #expect(chunkSizes.count > 10)
            #expect(chunkSizes.dropLast().allSatisfy { $0 >= 1000 && $0 < 1100 })
        }
    }

    @Test func throwingChunkHandlerStopsTheCopyOut() async throws {
        try await TestPostgres.withDatabase { connection in
            let start = ContinuousClock.now
            var calls = 0
            #expect(throws: Boom()) {
                try connection.copyOut(unsafeSQL: "COPY (SELECT g, md5(g::text) FROM (SELECT generate_series(1, 2000000000) AS g) s) TO STDOUT") { _ in
                    calls += 1
                    throw Boom()
                }
            }
            #expect(calls == 1)
            // Two billion rows would take many minutes; 60 s leaves room for a busy machine.
            #expect(ContinuousClock.now - start < .seconds(60), "the statement was cancelled, not run to the end")
            #expect(connection.isHealthy)
            let one: Int = try connection.scalar("SELECT 1")
            #expect(one == 1)
        }
    }

    @Test func parserUndoesEveryEscape() {
        let text = "a\\tb\\\\c\tx\\ny\\rz\t\\N\t\t\\b\\f\\v\\q\n1\n"
        var rows: [[String?]] = []
        Array(text.utf8).withUnsafeBytes { CopyTextParser().parseRows($0) { rows.append($0) } }
        #expect(rows.count == 2)
        #expect(rows.first == ["a\tb\\c", "x\ny\rz", nil, "", "\u{8}\u{c}\u{b}q"])
        #expect(rows.last == ["1"])
    }
}
