/// One mistake found while loading a model family: where it is, and a plain sentence saying what is wrong.
public struct ModelDiagnostic: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The file, relative to the directory that holds the family (`Recipes/v2.yaml`), or as given.
    public var file: String
    /// The line, starting at 1 (0 when the mistake has no place in a file).
    public var line: Int
    /// The column, starting at 1, when known.
    public var column: Int?
    /// What is wrong, as a sentence.
    public var message: String

    /// Creates a diagnostic.
    public init(file: String, line: Int, column: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// Creates a diagnostic at `location`, or at line 0 of `file` when there is no location.
    init(at location: SourceLocation?, orIn file: String, _ message: String) {
        self.init(file: location?.file ?? file, line: location?.line ?? 0, column: location?.column, message: message)
    }

    /// `file:line: message`.
    public var description: String { "\(file):\(line): \(message)" }

    /// Orders by file, then line, column and message.
    static func sortedForDisplay(_ diagnostics: [ModelDiagnostic]) -> [ModelDiagnostic] {
        diagnostics.sorted {
            ($0.file, $0.line, $0.column ?? 0, $0.message) < ($1.file, $1.line, $1.column ?? 0, $1.message)
        }
    }
}
