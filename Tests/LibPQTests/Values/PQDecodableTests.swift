import Foundation
import LibPQ
import PostgresTestSupport
import Testing

/// Every supported type goes to the server as a parameter and comes back equal, NULL included.
@Suite struct PQDecodableTests {
    /// Sends `value` as `$1::sqlType`, reads it back, and checks NULL goes both ways as nil.
    private func roundTrip<T: PQEncodable & PQDecodable & Equatable>(
        _ connection: Connection, _ value: T, _ sqlType: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let back: T = try connection.scalar("SELECT $1::\(sqlType) AS v", [value])
        #expect(back == value, "\(sqlType) round trip", sourceLocation: sourceLocation)
        let optional: T? = try connection.scalar("SELECT $1::\(sqlType) AS v", [Optional(value)])
        #expect(optional == value, sourceLocation: sourceLocation)
        let null: T? = try connection.scalar("SELECT $1::\(sqlType) AS v", [T?.none])
        #expect(null == nil, sourceLocation: sourceLocation)
        #expect(try connection.scalar("SELECT $1::\(sqlType) IS NULL", [T?.none], as: Bool.self), sourceLocation: sourceLocation)
    }

    @Test func strings() async throws {
        try await TestPostgres.withDatabase { connection in
            let values = [
                "", "plain", "Grüße, naïve café", "日本語テキスト", "emoji 😀👨‍👩‍👧‍👦🇫🇷",
                "tab\there", "new\nline\r\n", "back\\slash \\N \\. \\\\", "quotes ' \" `", "$1 -- not a comment; DROP TABLE x;",
                String(repeating: "long é ", count: 20_000),
            ]
            for value in values {
                try roundTrip(connection, value, "text")
                #expect(try connection.scalar("SELECT octet_length($1::text)", [value], as: Int.self) == value.utf8.count)
            }
            try roundTrip(connection, "varchar value", "varchar(20)")
            #expect(try connection.scalar("SELECT $1::text", [Substring("sub-string").dropFirst(4)], as: String.self) == "string")
        }
    }

    @Test func integers() async throws {
        try await TestPostgres.withDatabase { connection in
            for value in [Int16.min, -1, 0, 1, Int16.max] { try roundTrip(connection, value, "int2") }
            for value in [Int32.min, -1, 0, 42, Int32.max] { try roundTrip(connection, value, "int4") }
            for value in [Int64.min, -1, 0, 1 << 40, Int64.max] { try roundTrip(connection, value, "int8") }
            for value in [Int.min, 0, Int.max] { try roundTrip(connection, value, "int8") }
            #expect(try connection.scalar("SELECT $1::int8 = 9223372036854775807", [Int64.max], as: Bool.self))
            #expect(try connection.scalar("SELECT $1::int2 = -32768", [Int16.min], as: Bool.self))
        }
    }

    @Test func floatingPoint() async throws {
        try await TestPostgres.withDatabase { connection in
            let doubles: [Double] = [0, 1.5, -2.25, .pi, 0.1, 1e-300, 1e300, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                     .leastNormalMagnitude, .leastNonzeroMagnitude, .infinity, -.infinity]
            for value in doubles { try roundTrip(connection, value, "float8") }
            let floats: [Float] = [0, 1.1, -3.75, .pi, .greatestFiniteMagnitude, .leastNormalMagnitude, .infinity, -.infinity]
            for value in floats { try roundTrip(connection, value, "float4") }
            #expect(try connection.scalar("SELECT $1::float8", [Double.nan], as: Double.self).isNaN)
            #expect(try connection.scalar("SELECT $1::float4", [Float.nan], as: Float.self).isNaN)
            #expect(try connection.scalar("SELECT $1::float8 = 'NaN'::float8", [Double.nan], as: Bool.self))
            #expect(try connection.scalar("SELECT $1::float8 = '-Infinity'::float8", [-Double.infinity], as: Bool.self))
            #expect(try connection.scalar("SELECT $1::float8 = 0.1::float8", [0.1], as: Bool.self))
            // Exact: the shortest representation that reads back as the same double.
            #expect(try connection.scalar("SELECT $1::float8 = 3.141592653589793::float8", [Double.pi], as: Bool.self))
        }
    }

    @Test func booleans() async throws {
        try await TestPostgres.withDatabase { connection in
            try roundTrip(connection, true, "bool")
            try roundTrip(connection, false, "bool")
            #expect(try connection.scalar("SELECT $1::bool IS TRUE", [true], as: Bool.self))
            #expect(try connection.scalar("SELECT $1::bool IS FALSE", [false], as: Bool.self))
        }
    }

    @Test func decimals() async throws {
        try await TestPostgres.withDatabase { connection in
            let texts = [
                "0", "1", "-1", "123.45", "-98765.4321", "0.000000000000000000000000000001",
                "12345678901234567890.123456789012345678", "-12345678901234567890.123456789012345678",
                "99999999999999999999999999999999999999", "1000000000000000000000000000000",
            ]
            for text in texts {
                let value = try #require(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")))
                try roundTrip(connection, value, "numeric")
                // The server sees exactly the number written.
                #expect(try connection.scalar("SELECT $1::numeric = \(text)::numeric", [value], as: Bool.self), "\(text)")
                #expect(try connection.scalar("SELECT \(text)::numeric", as: Decimal.self) == value)
            }
        }
    }

    @Test func dates() async throws {
        try await TestPostgres.withDatabase { connection in
            let cases: [(Double, String)] = [
                (1_700_000_000.123456, "2023-11-14 22:13:20.123456"),
                (0, "1970-01-01 00:00:00.000000"),
                (-0.000001, "1969-12-31 23:59:59.999999"),
                (-1_000_000_000.5, "1938-04-24 22:13:19.500000"),
                (-2_208_988_800, "1900-01-01 00:00:00.000000"),
                (-15_000_000_000, "1494-09-01 21:20:00.000000"),
                (253_402_300_799.5, "9999-12-31 23:59:59.500000"),
                (4_102_444_800.000001, "2100-01-01 00:00:00.000001"),
            ]
            for (seconds, utc) in cases {
                let date = Date(timeIntervalSince1970: seconds)
                try roundTrip(connection, date, "timestamptz")
                let text: String = try connection.scalar("SELECT to_char($1::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')", [date])
                #expect(text == utc)
            }
            // Microseconds survive exactly.
            let precise = Date(timeIntervalSince1970: 1_234_567_890.000001)
            let micros: Int64 = try connection.scalar("SELECT (extract(epoch FROM $1::timestamptz) * 1000000)::int8", [precise])
            #expect(micros == 1_234_567_890_000_001)
        }
    }

    @Test func datesBeyondYear9999AndBeforeChrist() async throws {
        try await TestPostgres.withDatabase { connection in
            // Five-digit years, as PostgreSQL prints them.
            let farFuture: Date = try connection.scalar("SELECT '20000-01-01 00:00:00+00'::timestamptz")
            let farFutureSeconds: Double = try connection.scalar("SELECT extract(epoch FROM '20000-01-01 00:00:00+00'::timestamptz)::float8")
            #expect(farFuture == Date(timeIntervalSince1970: farFutureSeconds))
            try roundTrip(connection, farFuture, "timestamptz")
            let bc: Date = try connection.scalar("SELECT '0044-03-15 12:00:00+00 BC'::timestamptz")
            let bcSeconds: Double = try connection.scalar("SELECT extract(epoch FROM '0044-03-15 12:00:00+00 BC'::timestamptz)::float8")
            #expect(bc == Date(timeIntervalSince1970: bcSeconds))
            try roundTrip(connection, bc, "timestamptz")
            #expect(try connection.scalar("SELECT 'infinity'::timestamptz", as: Date.self) == .distantFuture)
            #expect(try connection.scalar("SELECT '-infinity'::timestamptz", as: Date.self) == .distantPast)
        }
    }

    /// Dates read right whatever the session's time zone, offsets in minutes and seconds included.
    @Test(arguments: ["UTC", "Asia/Kolkata", "America/St_Johns", "Europe/Amsterdam", "Pacific/Chatham"])
    func datesInAnyTimeZone(zone: String) async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.execute("SELECT set_config('TimeZone', $1, false)", [zone])
            for seconds in [1_700_000_000.25, -2_208_988_800.0, -1_800_000_000.5] {
                let date = Date(timeIntervalSince1970: seconds)
                try roundTrip(connection, date, "timestamptz")
                let epoch: Double = try connection.scalar("SELECT extract(epoch FROM $1::timestamptz)::float8", [date])
                #expect(epoch == seconds)
            }
            // timestamp without time zone is read as UTC.
            let naive: Date = try connection.scalar("SELECT '2024-03-01 12:00:00.5'::timestamp")
            #expect(naive == Date(timeIntervalSince1970: 1_709_294_400.5))
        }
    }

    @Test func uuids() async throws {
        try await TestPostgres.withDatabase { connection in
            for value in [UUID(), UUID(), UUID(uuidString: "00000000-0000-0000-0000-000000000000")!, UUID(uuidString: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")!] {
                try roundTrip(connection, value, "uuid")
                #expect(try connection.scalar("SELECT $1::uuid::text", [value], as: String.self) == value.uuidString.lowercased())
            }
            let generated: UUID = try connection.scalar("SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid")
            #expect(generated.uuidString == "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")
        }
    }

    @Test func bytes() async throws {
        try await TestPostgres.withDatabase { connection in
            let allBytes = Data((0...255).map { UInt8($0) })
            try roundTrip(connection, allBytes, "bytea")
            try roundTrip(connection, Data(), "bytea")
            try roundTrip(connection, Data(repeating: 0, count: 3), "bytea")
            try roundTrip(connection, Data((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }), "bytea")
            #expect(try connection.scalar("SELECT octet_length($1::bytea)", [allBytes], as: Int.self) == 256)
            #expect(try connection.scalar("SELECT md5($1::bytea)", [allBytes], as: String.self) == "e2c865db4162bed963bfaa9ef6ac18f0")
            #expect(try connection.scalar("SELECT '\\x00ff10'::bytea", as: Data.self) == Data([0, 255, 16]))
        }
    }

    @Test func json() async throws {
        struct Document: Codable, Equatable {
            var name: String
            var tags: [String]
            var count: Int
            var nested: [String: Double]
        }
        try await TestPostgres.withDatabase { connection in
            let document = Document(name: "Grüße \"quoted\" \\ 😀", tags: ["a", "b\tc"], count: -3, nested: ["x": 1.5])
            let json = try PQJSON(encoding: document)
            #expect(json.text == #"{"count":-3,"name":"Grüße \"quoted\" \\ 😀","nested":{"x":1.5},"tags":["a","b\tc"]}"#)
            // Sent as jsonb, which normalizes the text (spacing, key order) but keeps the value.
            for type in ["jsonb", "json"] {
                let back: PQJSON = try connection.scalar("SELECT $1::\(type)", [json])
                #expect(try back.decode(Document.self) == document)
                let optional: PQJSON? = try connection.scalar("SELECT $1::\(type)", [Optional(json)])
                #expect(try optional?.decode(Document.self) == document)
            }
            #expect(try connection.scalar("SELECT $1::jsonb ->> 'name'", [json], as: String.self) == document.name)
            #expect(try connection.scalar("SELECT jsonb_array_length($1::jsonb -> 'tags')", [json], as: Int.self) == 2)
            let null: PQJSON? = try connection.scalar("SELECT $1::jsonb", [PQJSON?.none])
            #expect(null == nil)
            #expect(PQJSON(text: "[1]").description == "[1]")
        }
    }

    @Test func manyParametersOfMixedTypes() async throws {
        try await TestPostgres.withDatabase { connection in
            let id = UUID()
            let row = try #require(try connection.execute(
                "SELECT $1::text AS a, $2::int4 AS b, $3::bool AS c, $4::uuid AS d, $5::bytea AS e, $6::float8 AS f, $7::text AS g",
                ["x", Int32(7), true, id, Data([1, 2]), 2.5, nil]
            ).first)
            #expect(try row.decode(String.self, column: "a") == "x")
            #expect(try row.decode(Int32.self, column: "b") == 7)
            #expect(try row.decode(Bool.self, column: "c") == true)
            #expect(try row.decode(UUID.self, column: "d") == id)
            #expect(try row.decode(Data.self, column: "e") == Data([1, 2]))
            #expect(try row.decode(Double.self, column: "f") == 2.5)
            #expect(try row.decode(String?.self, column: "g") == nil)
        }
    }
}
