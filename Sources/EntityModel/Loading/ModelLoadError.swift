/// Every mistake found in a model family or version, thrown together once loading is complete.
///
/// Its description has one `file:line: message` per line, sorted by file and then line.
public struct ModelLoadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The mistakes, sorted by file, then line.
    public var diagnostics: [ModelDiagnostic]

    /// Creates an error holding `diagnostics`, which are sorted for display.
    public init(diagnostics: [ModelDiagnostic]) {
        self.diagnostics = ModelDiagnostic.sortedForDisplay(diagnostics)
    }

    /// One `file:line: message` per line.
    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
