import ArgumentParser

/// What `--json` prints on stdout when a command fails before it has results to print (the
/// database cannot be reached, the models do not load, an option is wrong):
/// `{"error": {"message": "…", "sqlState": "08001"}}`.
struct ErrorDocument: Encodable {
    struct Failure: Encodable {
        /// The message the command prints on stderr.
        let message: String
        /// The SQLSTATE behind the failure, when the server (or libpq) gave one.
        let sqlState: String?
    }

    let error: Failure

    init(_ error: any Error) {
        self.error = Failure(message: CommandLineMessage.describe(error), sqlState: CommandLineMessage.sqlState(of: error))
    }

    /// An error ArgumentParser reports (a parse or validation error), in its words.
    init(message: String) {
        error = Failure(message: message, sqlState: nil)
    }
}
