import EntityModel
import Foundation
import Testing
import TypedSQL

/// A quoter for tests that need no database: wraps identifiers in `"` and literals in `'`, doubling
/// the quote inside. The library never quotes by hand; golden tests use a real libpq connection.
struct PlainQuoter: SQLQuoting {
    func quoteIdentifier(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    func quoteLiteral(_ literal: String) -> String {
        "'" + literal.replacingOccurrences(of: "'", with: "''") + "'"
    }
}

/// Expects the broken fixture `name` to report exactly `expected`, as `(line, message)` pairs in
/// file order.
func expectDiagnostics(
    ofBroken name: String, _ expected: [(Int, String)], sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws {
    let found = try Fixtures.diagnostics(ofBroken: name)
    let file = "Broken/\(name).yaml"
    #expect(found.map(\.file) == Array(repeating: file, count: found.count), sourceLocation: sourceLocation)
    #expect(found.map(\.line) == expected.map(\.0), sourceLocation: sourceLocation)
    #expect(found.map(\.message) == expected.map(\.1), sourceLocation: sourceLocation)
}

/// A broken fixture, `Fixtures/Broken/<name>.yaml`, and the `(line, message)` pairs it must report,
/// in file order.
struct BrokenFixture: Sendable, CustomTestStringConvertible {
    let name: String
    let expected: [(Int, String)]

    init(_ name: String, _ expected: [(Int, String)]) {
        self.name = name
        self.expected = expected
    }

    var testDescription: String { name }
}

/// A version built from YAML text, failing the test with every diagnostic if it does not load.
func version(_ yaml: String, name: String = "v1") throws -> ModelVersion {
    try ModelVersion(name: name, yaml: yaml, file: "\(name).yaml")
}

/// The diagnostics of YAML text that should not load.
func diagnostics(_ yaml: String) -> [String] {
    do {
        _ = try ModelVersion(name: "v1", yaml: yaml, file: "v1.yaml")
        return []
    } catch {
        return error.diagnostics.map(\.description)
    }
}

extension String {
    /// This text with `old` replaced by `new`.
    func replacing(_ old: String, with new: String) -> String {
        replacingOccurrences(of: old, with: new)
    }
}
