import Testing

/// docs/Architecture.md names only what exists: a newcomer who follows it finds every type,
/// function and file it gives.
@Suite struct ArchitecturePageTests {
    @Test func everyNameOnThePageExists() throws {
        let page = try ArchitecturePage.load(), index = try SourceIndex.current.get()
        let problems = page.problems(in: index)
        #expect(problems.isEmpty, "docs/Architecture.md or its diagram names what Sources/ no longer has:\n\(problems.map(\.description).joined(separator: "\n"))")
    }

    @Test func thePageIsReadForItsNames() throws {
        let page = try ArchitecturePage.load()
        // The page gives about a hundred names; a reader that found a few would check nothing.
        #expect(page.checkedNames.count >= 80, "only \(page.checkedNames.count) names found")
        #expect(page.checkedNames.contains { $0.file == ArchitecturePage.diagram })
    }

    /// A renamed type, member, label, file or diagram label is caught.
    @Test(arguments: [
        ("`TenantMove.run`", "`TenantMove.runs`"),
        ("`ModelFamily.path(from:to:)`", "`ModelFamily.path(to:from:)`"),
        ("**`FleetExecutor`**", "**`FleetRunnr`**"),
        ("`Fleet/FanOut.swift`", "`Fleet/FannedOut.swift`"),
        ("`perform()`", "`performs()`"),
        ("`StepExecutor.Options`", "`StepExecutor.Settings`"),
    ])
    func aChangedNameOnThePageIsFound(_ original: String, _ changed: String) throws {
        let page = try ArchitecturePage.load(), index = try SourceIndex.current.get()
        let markdown = try #require(try? String(contentsOf: DocumentedSnippet.repository.appendingPathComponent(ArchitecturePage.page), encoding: .utf8))
        #expect(markdown.contains(original), "the page no longer says \(original): pick another example")
        let edited = ArchitecturePage(markdown: markdown.replacingOccurrences(of: original, with: changed), dot: "")
        #expect(page.problems(in: index).isEmpty)
        #expect(!edited.problems(in: index).isEmpty, "\(changed) was not found missing")
    }

    @Test func aChangedNameInTheDiagramIsFound() throws {
        let index = try SourceIndex.current.get()
        let dot = #"Fleet [label="FleetExecutor.walk\none catalog query"];"#
        let problems = ArchitecturePage(markdown: "", dot: dot).problems(in: index)
        #expect(problems.map(\.text) == ["FleetExecutor.walk"])
        #expect(ArchitecturePage(markdown: "", dot: dot.replacingOccurrences(of: "walk", with: "run")).problems(in: index).isEmpty)
    }
}
