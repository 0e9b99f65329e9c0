import ArgumentParser

/// A command of a runner that does work. Its `run()` runs ``perform()`` and rewords the library's
/// errors in the command line's terms (see `Error+CommandLine.swift`), so they read the same
/// whether the runner is the process's root command or a host app's subcommand: the host prints
/// what `run()` throws.
///
/// A command that prints JSON (``printsJSON``) prints exactly one document on stdout, in failure
/// too: when it fails before printing its own, `run()` prints an ``ErrorDocument``. A failure after
/// the document (tenants that failed, drift) is thrown as a ``ReportedFailure``.
protocol RunnerCommand: AsyncParsableCommand {
    associatedtype Runner: TenantMigrateRunner
    /// The command's work.
    func perform() async throws
    /// Whether the command prints its results as JSON (`--json`).
    var printsJSON: Bool { get }
}

extension RunnerCommand {
    var printsJSON: Bool { false }

    /// Notes on stderr, under the runner's name.
    var console: Console { Runner.console }

    func run() async throws {
        do {
            try await perform()
        } catch let failure as ReportedFailure {
            throw CommandLineMessage.translating(failure.error)
        } catch {
            if printsJSON, !(error is ExitCode) { try? Console.printJSON(ErrorDocument(error)) }
            throw CommandLineMessage.translating(error)
        }
    }
}

/// A command that returns its results as a value, a ``CommandReport``, which its ``OutputOptions``
/// print: `--format text|json|…` and `--json` are declared once, in the option group, and rendered
/// by one generator per format. (The commands that write a file or a diagram, such as `diagram`
/// and `model import`, are plain ``RunnerCommand``s.)
protocol ReportingCommand: RunnerCommand {
    associatedtype Report: CommandReport
    /// `--format` and `--json`.
    var output: OutputOptions<Report> { get }
    /// The command's work, and what it found or did.
    func report() async throws -> Report
}

extension ReportingCommand {
    var printsJSON: Bool { output.chosen == .json }

    func perform() async throws {
        try output.show(try await report())
    }
}

/// A command's failure, thrown after its report (the JSON document) is on stdout.
struct ReportedFailure: Error {
    let error: any Error
}
