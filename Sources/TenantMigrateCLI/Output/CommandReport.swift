import ArgumentParser

/// What a command found or did, as a value: ``OutputOptions`` prints it in the format asked for,
/// so that every command prints text, JSON and (where it has them) Markdown and HTML the same way.
///
/// The JSON form is the value's `Encodable` form. A report may end the command in failure
/// (``failure``) after it is printed: a tenant that failed, drift, an impossible step.
protocol CommandReport: Encodable {
    /// The formats the report has. Default: text and JSON.
    static var formats: [OutputFormat] { get }
    /// Prints the text form on stdout.
    func printText()
    /// The Markdown or HTML document, for a report that lists those formats.
    func document(_ format: OutputFormat) -> String
    /// The error the command ends with once the report is printed; nil when it succeeded.
    var failure: (any Error)? { get }
}

extension CommandReport {
    static var formats: [OutputFormat] { [.text, .json] }

    func document(_ format: OutputFormat) -> String {
        preconditionFailure("\(Self.self) has no \(format.rawValue) form; OutputOptions refuses the format")
    }

    var failure: (any Error)? { nil }
}

/// A report that is one line of text, for the commands that change one thing (`tenant drop`,
/// `tenant unpin`): `{"message": "…"}` in JSON, with what the command changed beside it.
struct MessageReport<Details: Encodable>: CommandReport {
    let message: String
    let details: Details

    func printText() { Console.line(message) }

    private enum Keys: String, CodingKey { case message }

    func encode(to encoder: any Encoder) throws {
        try details.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(message, forKey: .message)
    }
}
