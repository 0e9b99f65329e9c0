import Foundation

/// A ```swift block of README.md or docs/*.md, where it stands and the lines it compares by.
struct DocumentedSnippet: Sendable, CustomStringConvertible {
    /// The document, relative to the repository: `docs/ServerApps.md`.
    var document: String
    /// The line of the opening fence, counted from 1.
    var line: Int
    /// The block's lines, trimmed, blank lines dropped.
    var lines: [String]

    var description: String { "\(document):\(line)" }

    /// The repository this test file lives in.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every ```swift block of README.md and docs/*.md, in document order.
    static func all() throws -> [DocumentedSnippet] {
        let docs = repository.appendingPathComponent("docs")
        let names = try FileManager.default.contentsOfDirectory(atPath: docs.path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return try (["README.md"] + names).flatMap { try snippets(in: $0) }
    }

    /// The ```swift blocks of one document (a path relative to the repository).
    static func snippets(in document: String) throws -> [DocumentedSnippet] {
        let text = try String(contentsOf: repository.appendingPathComponent(document), encoding: .utf8)
        var snippets: [DocumentedSnippet] = []
        var open: DocumentedSnippet?
        for (index, raw) in text.components(separatedBy: "\n").enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if var snippet = open {
                if line == "```" {
                    snippets.append(snippet)
                    open = nil
                } else {
                    if !line.isEmpty { snippet.lines.append(line) }
                    open = snippet
                }
            } else if line == "```swift" {
                open = DocumentedSnippet(document: document, line: index + 1, lines: [])
            }
        }
        return snippets
    }
}
