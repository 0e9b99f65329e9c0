import ArgumentParser

/// A command of the runner that does work. Its `run()` runs ``perform()`` and rewords the
/// library's errors in the command line's terms (see `Error+CommandLine.swift`), so they read the
/// same whether the runner is the process's root command or a host app's subcommand: the host
/// prints what `run()` throws.
protocol RunnerCommand: AsyncParsableCommand {
    /// The command's work.
    func perform() async throws
}

extension RunnerCommand {
    func run() async throws {
        do {
            try await perform()
        } catch {
            throw CommandLineMessage.translating(error)
        }
    }
}
