import Foundation

/// The Swift files under Examples/, and under Migrations/ (the families' policies, which the
/// RecipesPolicies target builds), build directories left out, each as trimmed non-blank lines.
struct ExampleSources: Sendable {
    struct File: Sendable {
        /// Relative to the repository: `Examples/ServerApp/main.swift`.
        var path: String
        var lines: [String]
    }

    var files: [File]

    static let directories = ["Examples", "Migrations"]

    static func load() throws -> ExampleSources {
        var files: [File] = []
        for directory in directories {
            let root = DocumentedSnippet.repository.appendingPathComponent(directory)
            guard let walker = FileManager.default.enumerator(atPath: root.path) else { continue }
            while let relative = walker.nextObject() as? String {
                if relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }  // .build, .swiftpm
                guard relative.hasSuffix(".swift") else { continue }
                let text = try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
                let lines = text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                files.append(File(path: directory + "/" + relative, lines: lines))
            }
        }
        return ExampleSources(files: files.sorted { $0.path < $1.path })
    }

    /// The first file whose lines hold `snippet`'s lines as a contiguous run.
    func file(containing snippet: DocumentedSnippet) -> File? {
        files.first { file in Self.contains(file.lines, run: snippet.lines) }
    }

    static func contains(_ lines: [String], run: [String]) -> Bool {
        guard !run.isEmpty else { return true }
        guard run.count <= lines.count else { return false }
        return (0...(lines.count - run.count)).contains { start in
            lines[start] == run[0] && Array(lines[start..<(start + run.count)]) == run
        }
    }
}
