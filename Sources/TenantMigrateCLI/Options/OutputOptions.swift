import ArgumentParser

/// `--format` and `--json`: how a command prints its ``CommandReport``. Declared once, here; a
/// command lists it with `@OptionGroup var output: OutputOptions<ItsReport>`, and its help names
/// the formats that report has.
struct OutputOptions<Report: CommandReport>: ParsableArguments {
    @Option(help: ArgumentHelp(
        "How to print the results: \(Report.formats.map(\.rawValue).joined(separator: ", "))."
            + (Report.formats.contains(.html)
                ? " markdown and html are one self-contained document with each step's diagram (changes marked), its account and its SQL; the HTML needs no network."
                : ""),
        valueName: "format"
    ), completion: .list(Report.formats.map(\.rawValue)))
    var format: OutputFormat = .text

    @Flag(help: "Print the results as one JSON document on stdout, an error object when the command fails before it has results (the same as --format json).")
    var json = false

    /// The format asked for.
    var chosen: OutputFormat { json ? .json : format }

    func validate() throws {
        if json && format != .text && format != .json {
            throw ValidationError("--json and --format \(format.rawValue) are alternatives; choose one")
        }
        guard Report.formats.contains(format) else {
            throw ValidationError("--format takes \(Report.formats.map(\.rawValue).joined(separator: ", ")) here")
        }
    }

    /// Prints `report` in the chosen format, then throws its ``CommandReport/failure``, if any.
    func show(_ report: Report) throws {
        switch chosen {
        case .text: report.printText()
        case .json: try Console.printJSON(report)
        case .markdown, .html: StandardStream.output.write(report.document(chosen))
        }
        guard let failure = report.failure else { return }
        if failure is ExitCode { throw failure }
        throw ReportedFailure(error: failure)
    }
}
