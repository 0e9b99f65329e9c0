import Foundation
import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import Testing

/// An array literal reads back, element by element, as the values it was built from: generated
/// integers (to both ends of `Int64`), strings that need escaping, NULLs, and the types that go
/// through their wire form (numbers, booleans, bytes).
@Suite struct ArrayLiteralTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func generatedElementsReadBackAsTheyWere(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let characters = Array("ab \"\\,{}' NULL\té→😀")
        var integers: [Int64?] = [.min, .max, 0, -1]
        var ints: [Int?] = []
        var strings: [String?] = ["", "NULL", "\"", "\\"]
        var doubles: [Double?] = []
        var bytes: [Data?] = []
        for _ in 0..<200 {
            integers.append(Int.random(in: 0..<8, using: &random) == 0 ? nil : Int64.random(in: .min ... .max, using: &random))
            ints.append(Int.random(in: 0..<8, using: &random) == 0 ? nil : Int.random(in: -1_000_000...1_000_000, using: &random))
            strings.append(Int.random(in: 0..<8, using: &random) == 0 ? nil
                : String((0..<Int.random(in: 0...8, using: &random)).map { _ in characters.randomElement(using: &random)! }))
            doubles.append(Int.random(in: 0..<8, using: &random) == 0 ? nil : Double.random(in: -1e6...1e6, using: &random))
            bytes.append(Int.random(in: 0..<8, using: &random) == 0 ? nil : Data((0..<Int.random(in: 0...6, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))
        }
        try await TestPostgres.withDatabase { connection in
            let readIntegers = try Self.readBack(integers, as: "bigint", Int64.self, on: connection)
            let readInts = try Self.readBack(ints, as: "bigint", Int.self, on: connection)
            let readStrings = try Self.readBack(strings, as: "text", String.self, on: connection)
            let readDoubles = try Self.readBack(doubles, as: "float8", Double.self, on: connection)
            let readBytes = try Self.readBack(bytes, as: "bytea", Data.self, on: connection)
            let readBooleans = try Self.readBack([true, nil, false], as: "boolean", Bool.self, on: connection)
            #expect(readIntegers == integers)
            #expect(readInts == ints)
            #expect(readStrings == strings)
            #expect(readDoubles == doubles)
            #expect(readBytes == bytes)
            #expect(readBooleans == [true, nil, false])
        }
    }

    /// `values` as one array literal, read back as `type[]`, element by element.
    private static func readBack<T: PQDecodable>(_ values: [(any PQEncodable)?], as type: String, _: T.Type, on connection: Connection) throws -> [T?] {
        var literal = ArrayLiteral()
        for value in values { literal.append(value) }
        return try connection.execute(Statement("SELECT v FROM pg_catalog.unnest($1::pg_catalog.text::\(raw: type)[]) WITH ORDINALITY AS a(v, n) ORDER BY n",
                                                binds: [literal.bind])).map { try $0.decode(T?.self, at: 0) }
    }
}
