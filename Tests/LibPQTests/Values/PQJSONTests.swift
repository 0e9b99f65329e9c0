import Foundation
import LibPQ
import PostgresTestSupport
import Testing

/// `PQJSON(numbers:)` writes what `JSONEncoder` would, by hand: generated objects (keys that need
/// escaping, whole, fractional, tiny, huge and negative values, and ones that are not finite) read
/// back equal with `JSONDecoder` and are the same `jsonb` to PostgreSQL as the encoder's text.
@Suite struct PQJSONTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func anObjectOfNumbersIsWhatTheEncoderWrites(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let keyCharacters = Array("abcXYZ_09 \"\\\n\t\u{01}é→😀")
        func number() -> Double {
            switch Int.random(in: 0..<7, using: &random) {
            case 0: return Double(Int.random(in: -1_000_000...1_000_000, using: &random))
            case 1: return Double.random(in: -1_000...1_000, using: &random)
            case 2: return Double.random(in: 0..<1, using: &random) * 1e-9
            case 3: return Double.random(in: 1...9, using: &random) * 1e18
            case 4: return [Double.nan, .infinity, -.infinity][Int.random(in: 0..<3, using: &random)]
            case 5: return -0.0
            default: return Double(Int.random(in: 0...500, using: &random)) / 8
            }
        }
        try await TestPostgres.withDatabase { connection in
            for _ in 0..<100 {
                var numbers: [String: Double] = [:]
                for _ in 0..<Int.random(in: 0...6, using: &random) {
                    let key = String((0..<Int.random(in: 0...5, using: &random)).map { _ in keyCharacters.randomElement(using: &random)! })
                    numbers[key] = number()
                }
                let json = PQJSON(numbers: numbers)
                let read = try JSONDecoder().decode([String: Double?].self, from: Data(json.text.utf8))
                #expect(read.count == numbers.count, "\(json.text)")
                for (key, value) in numbers {
                    #expect(read[key] == (value.isFinite ? value : nil), "\(key): \(value) in \(json.text)")
                }
                let finite = numbers.filter { $0.value.isFinite }
                #expect(try connection.scalar("SELECT $1::jsonb = $2::jsonb", [PQJSON(numbers: finite), try PQJSON(encoding: finite)], as: Bool.self),
                        "\(PQJSON(numbers: finite).text)")
            }
        }
        #expect(PQJSON(numbers: ["rows": 406, "ms": 41.552685, "a\"b": 0.5]).text == #"{"a\"b":0.5,"ms":41.552685,"rows":406}"#)
    }
}
