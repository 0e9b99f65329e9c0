import Foundation
import Testing

/// Every Swift snippet in README.md and docs/*.md is an excerpt of code under Examples/ (or of the
/// Recipes policies under Migrations/), which CI builds, but for Examples/HummingbirdApp and
/// Examples/VaporApp: packages of their own, built by hand. Lines are compared trimmed, blank
/// lines dropped; a snippet must be a contiguous run of one file's lines.
@Suite struct DocumentationTests {
    @Test(arguments: try DocumentedSnippet.all())
    func snippetIsAnExcerptOfAnExample(_ snippet: DocumentedSnippet) throws {
        let examples = try ExampleSources.load()
        let closest = examples.files.map { file in (file.path, Self.longestPrefixFound(of: snippet.lines, in: file.lines)) }
            .max { $0.1 < $1.1 }
        let hint = closest.map { path, matched in
            matched < snippet.lines.count
                ? "; the longest run found is \(matched) of \(snippet.lines.count) lines, in \(path); first line not matched: \(snippet.lines[matched])"
                : ""
        } ?? ""
        #expect(
            examples.file(containing: snippet) != nil,
            "\(snippet.document):\(snippet.line): this ```swift block is not an excerpt of any Swift file under Examples/ or Migrations/\(hint)"
        )
    }

    @Test func theDocumentsHaveSnippets() throws {
        let snippets = try DocumentedSnippet.all()
        #expect(snippets.count >= 10)
        #expect(snippets.allSatisfy { !$0.lines.isEmpty }, "empty ```swift blocks: \(snippets.filter { $0.lines.isEmpty })")
    }

    @Test func comparisonTrimsLinesAndDropsBlankOnes() throws {
        let file = ["import A", "let x = 1", "", "func f() {", "    g()", "}"]
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(ExampleSources.contains(file, run: ["let x = 1", "func f() {", "g()"]))
        #expect(!ExampleSources.contains(file, run: ["import A", "func f() {"]))
    }

    /// How many of `run`'s first lines stand contiguously somewhere in `lines`: for the failure message.
    static func longestPrefixFound(of run: [String], in lines: [String]) -> Int {
        var best = 0
        for start in lines.indices where lines[start] == run.first {
            var matched = 0
            while matched < run.count, start + matched < lines.count, lines[start + matched] == run[matched] { matched += 1 }
            best = max(best, matched)
        }
        return best
    }
}
