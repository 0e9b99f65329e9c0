import ArgumentParser
import EntityModel
import Foundation

/// `tenant-migrate diagram`: the entity model of one version as Mermaid, DOT or SVG. Offline.
struct DiagramCommand<Runner: TenantMigrateRunner>: RunnerCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "diagram",
        abstract: "Draw the entity model of one version: Mermaid (the default), Graphviz DOT, or SVG.",
        discussion: """
            Entities with their attributes and types (optional, unique and indexed marked), \
            relationships in crow's-foot notation with their delete rules, inheritance, and the \
            PostgreSQL table and column names where they differ from the model's names. Mermaid's \
            erDiagram renders in GitHub and GitLab Markdown; DOT suits large models; SVG runs \
            Graphviz's dot (Debian package graphviz). Needs no database.
            """
    ) }

    @OptionGroup var options: RunnerOptions<Runner>
    @Option(help: ArgumentHelp("The version to draw. Default: the latest.", valueName: "v")) var version: String?
    @Option(help: ArgumentHelp("mermaid, dot or svg.", valueName: "format")) var format: DiagramFormat = .mermaid
    @Option(help: ArgumentHelp("Write the diagram to this file instead of stdout.", valueName: "file")) var output: String?

    func perform() async throws {
        let family = try ModelFamily.load(from: try options.familyDirectory())
        let drawn: ModelVersion
        if let version {
            guard let found = family.version(named: version) else {
                throw CLIError("family \(family.name) has no version \(version) (versions: \(family.versionNames.joined(separator: ", ")))")
            }
            drawn = found
        } else {
            drawn = family.latestVersion
        }
        let text = try format.render(ERDiagram(version: drawn), title: "\(family.name) \(drawn.name)")
        try DiagramFormat.emit(text, to: output)
    }
}

/// The formats `diagram` writes.
enum DiagramFormat: String, CaseIterable, ExpressibleByArgument {
    case mermaid, dot, svg

    /// The diagram in this format; SVG runs Graphviz.
    func render(_ diagram: ERDiagram, title: String) throws -> String {
        switch self {
        case .mermaid: return diagram.mermaid(title: title)
        case .dot: return diagram.dot(title: title)
        case .svg: return try Graphviz.require().svg(fromDOT: diagram.dot(title: title))
        }
    }

    /// Writes `text` to `path`, or to stdout when there is none.
    static func emit(_ text: String, to path: String?) throws {
        guard let path else {
            StandardStream.output.write(text)
            return
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw FileProblem.writing(path, error)
        }
    }
}
