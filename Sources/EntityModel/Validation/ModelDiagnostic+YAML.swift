import Yams

extension ModelDiagnostic {
    /// The diagnostic for an error that reading a YAML file threw (Yams', or a ``ModelYAML``
    /// refusal): the problem in a sentence, at its line, as in `v2.yaml:12: this is not valid YAML:
    /// did not find expected ',' or '}'.` Version files, family.yaml and mapping models say it alike.
    public init(yamlError error: any Error, in file: String) {
        if let refusal = error as? ModelYAML.Refusal {
            self.init(file: file, line: refusal.line, column: refusal.column, message: refusal.message)
            return
        }
        switch error as? YamlError {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
            self.init(file: file, line: mark.line, column: mark.column, message: "this is not valid YAML: \(problem).")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.map { "\"\($0)\"" }.joined(separator: ", ")
            self.init(file: file, line: context.mark.line, column: context.mark.column,
                      message: "the key \(keys) appears more than once in the same mapping.")
        case .reader(let problem, _, _, _):
            self.init(file: file, line: 1, message: "this file cannot be read as UTF-8 text: \(problem).")
        default:
            self.init(file: file, line: 1, message: "this is not valid YAML: \(error).")
        }
    }
}
