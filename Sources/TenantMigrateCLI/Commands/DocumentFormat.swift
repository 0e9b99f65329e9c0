import ArgumentParser
import EntityModel
import MigrationEngine
import TypedSQL

/// `plan --format` and `check --format`: the usual text, or one self-contained document.
enum DocumentFormat: String, CaseIterable, ExpressibleByArgument {
    case text, markdown, html

    /// The option's help, followed by `more`.
    static func help(_ more: String = "") -> ArgumentHelp {
        ArgumentHelp(
            "text (the default), markdown, or html: one self-contained document with each step's diagram (changes marked), "
                + "its account (carried, transformed, archived, lost, and by what) and its SQL. The HTML needs no network: "
                + "inline SVG from Graphviz, or Mermaid source when Graphviz is missing." + more,
            valueName: "format"
        )
    }

    /// Prints `document` in this format (not for `.text`).
    func print(_ document: PlanDocument) {
        switch self {
        case .text: break
        case .markdown: StandardStream.output.write(document.markdown())
        case .html: StandardStream.output.write(document.html(graphviz: Graphviz.onPath()))
        }
    }
}
