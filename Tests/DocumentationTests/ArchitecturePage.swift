import Foundation

/// docs/Architecture.md and its diagram's source, read for the names they give: every code span
/// that looks like a Swift name or a source path, and every CamelCase name in the diagram's labels.
/// ``problems(in:)`` lists those that Sources/ no longer has, so the page cannot drift from the code
/// unnoticed.
struct ArchitecturePage: Sendable {
    /// One name the page gives, where it gives it.
    struct Name: Sendable, Hashable, CustomStringConvertible {
        var file: String
        var line: Int
        var text: String
        var description: String { "\(file):\(line): `\(text)`" }
    }

    var names: [Name]

    static let page = "docs/Architecture.md"
    static let diagram = "docs/images/architecture.dot"
    /// CamelCase words of the diagram's labels that are prose, not Swift.
    static let prose: Set<String> = ["PostgreSQL"]
    /// Names of the platform and the dependencies, which Sources/ uses but does not declare.
    static let external: Set<String> = ["Process", "Service", "Codable", "Sendable", "Logger"]

    static func load() throws -> ArchitecturePage {
        let read = { (path: String) in
            try String(contentsOf: DocumentedSnippet.repository.appendingPathComponent(path), encoding: .utf8)
        }
        return ArchitecturePage(markdown: try read(page), dot: try read(diagram))
    }

    init(markdown: String, dot: String) {
        var names: [Name] = []
        for (number, line) in markdown.components(separatedBy: "\n").enumerated() {
            for match in line.matches(of: #/`([^`]+)`/#) {
                names.append(Name(file: Self.page, line: number + 1, text: String(match.1)))
            }
        }
        let camelCase = #/\b[A-Z]+[a-z0-9]+[A-Z][A-Za-z0-9]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/#
        for (number, line) in dot.components(separatedBy: "\n").enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
            for label in line.matches(of: #/label="([^"]*)"/#) {
                for match in label.1.matches(of: camelCase) where !Self.prose.contains(String(match.0)) {
                    names.append(Name(file: Self.diagram, line: number + 1, text: String(match.0)))
                }
            }
        }
        self.names = names
    }

    /// What a name is, to check it.
    enum Kind: Equatable {
        /// A file or folder: `Fleet/FanOut.swift`, `TenantMigrator/Online/`, `docs/Online.md`.
        case path(String)
        /// A type, a member chain, or a function: `TenantRecord.standing(toward:)`, `perform()`.
        case swift(components: [String], firstLabel: String?)
        /// Prose, SQL, a flag or a command line: not checked.
        case other
    }

    static func kind(of text: String) -> Kind {
        if text.hasPrefix("-") || text.contains(" ") || text.contains("|") || text.contains(",") { return .other }
        if text.contains("/") || text.hasSuffix(".swift") || text.hasSuffix(".md") || text.hasSuffix(".dot") { return .path(text) }
        guard let match = text.wholeMatch(of: #/([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\(([\w:]*)\))?/#) else { return .other }
        let components = match.1.split(separator: ".").map(String.init)
        let first = components[0]
        let hasLower = first.contains(where: \.isLowercase), hasUpper = first.contains(where: \.isUppercase)
        // SQL words (`BEGIN`, `NOWAIT`) and plain lowercase words (`entries`) are not Swift names;
        // a lowercase name counts when it is camelCase (`moveAll`) or called (`run()`).
        if components.count == 1 && (!hasLower || (!hasUpper && match.2 == nil)) { return .other }
        let label = match.2.map { labels in labels.split(separator: ":", omittingEmptySubsequences: false).first.map(String.init) ?? "_" }
        return .swift(components: components, firstLabel: label.map { $0.isEmpty ? "_" : $0 })
    }

    /// The names Sources/ (or, for paths of the repository, the repository) no longer has.
    func problems(in index: SourceIndex) -> [Name] {
        names.filter { name in !Self.exists(name.text, in: index) }
    }

    /// The names that are checked (not prose): for a test that the page is read at all.
    var checkedNames: [Name] { names.filter { Self.kind(of: $0.text) != .other } }

    static func exists(_ text: String, in index: SourceIndex) -> Bool {
        switch kind(of: text) {
        case .other:
            return true
        case let .swift(components, _) where external.contains(components[0]):
            return true
        case let .path(path):
            let root = DocumentedSnippet.repository
            return FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path) || index.hasPath(path)
        case let .swift(components, firstLabel):
            let callable = { (name: String) in firstLabel.map { "\(name)(\($0)" } ?? name }
            guard components.count > 1 else {
                let name = components[0]
                return index.declaresType(name) || index.folders.contains(name) || index.declaresAnything(named: callable(name))
            }
            guard index.declaresType(components[0]) || index.folders.contains(components[0]) else { return false }
            for position in 1..<components.count {
                let owner = components[position - 1], member = components[position]
                let isLast = position == components.count - 1
                guard index.declares(isLast ? callable(member) : member, in: owner) else { return false }
            }
            return true
        }
    }
}
