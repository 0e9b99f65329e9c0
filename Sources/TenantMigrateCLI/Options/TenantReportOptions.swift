import ArgumentParser

/// `--tenant NAME` and `--json`: the options of the commands that look at every tenant, or at one
/// (`archive list`, `archive prune`, `online cleanup`).
struct TenantReportOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Only this tenant.", valueName: "name")) var tenant: String?
    @Flag(help: "Print JSON.") var json = false

    /// Prints `results` as one JSON document with `--json`, else as `text` prints them.
    func show<Results: Encodable>(_ results: Results, text: (Results) -> Void) throws {
        if json { return try Console.printJSON(results) }
        text(results)
    }
}

/// A command with ``TenantReportOptions``, whose `--json` says how it prints.
protocol TenantReportCommand: RunnerCommand {
    var report: TenantReportOptions { get }
}

extension TenantReportCommand {
    var printsJSON: Bool { report.json }
}
