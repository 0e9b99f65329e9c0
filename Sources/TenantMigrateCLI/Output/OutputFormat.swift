import ArgumentParser
import EntityModel
import MigrationEngine

/// How a command prints its report (``CommandReport``): `--format text|json|markdown|html`, with
/// `--json` as the shorthand of `--format json`.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// Lines and tables for a terminal (the default).
    case text
    /// One JSON document on stdout, in failure too (``ErrorDocument``).
    case json
    /// One self-contained Markdown document.
    case markdown
    /// One self-contained HTML page: inline SVG from Graphviz, or Mermaid source when it is missing.
    case html

    /// None: each command's help lists the formats its report has (``OutputOptions``), rather than
    /// ArgumentParser listing all four everywhere.
    static var allValueStrings: [String] { [] }

    /// `document` in this format (`markdown` or `html`).
    func render(_ document: PlanDocument) -> String {
        self == .html ? document.html(graphviz: Graphviz.onPath()) : document.markdown()
    }
}
