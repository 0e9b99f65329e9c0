import ArgumentParser

extension TenantMigrateRunner {
    /// Runs the command line as the process's root command (`await RecipesRunner.main()`, or
    /// `@main` on the runner type), as ArgumentParser's `main()` does, and with `--json`, an
    /// argument that does not parse (`--jobs 0 --json`) prints an ``ErrorDocument`` on stdout too.
    public static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let command: any ParsableCommand
        do {
            command = try await asyncParseAsRoot(arguments)
        } catch {
            if arguments.contains("--json"), !exitCode(for: error).isSuccess {
                try? Console.printJSON(ErrorDocument(message: message(for: error)))
            }
            exit(withError: error)
        }
        do {
            var command = command
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
