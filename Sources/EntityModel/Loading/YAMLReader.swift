import Yams

/// Reads YAML nodes of a model file, recording a diagnostic (with the node's line) for every node
/// of the wrong kind or with an unknown key, and carrying on.
public struct YAMLReader {
    /// The file named in diagnostics.
    public let file: String
    /// The mistakes found so far.
    public var diagnostics: [ModelDiagnostic] = []

    public init(file: String) {
        self.file = file
    }

    /// A key of a mapping, with its node (for its line) and its value.
    public struct Entry {
        public var key: String
        public var keyNode: Node
        public var value: Node
    }

    /// The location of `node` in this file (line 0 when the node has no mark).
    public func location(of node: Node) -> SourceLocation {
        SourceLocation(file: file, line: node.mark?.line ?? 0, column: node.mark?.column)
    }

    public mutating func report(_ node: Node, _ message: String) {
        diagnostics.append(ModelDiagnostic(at: location(of: node), orIn: file, message))
    }

    /// The entries of `node` if it is a mapping with scalar keys; otherwise reports that `what`
    /// must be a mapping. A null node is an empty mapping when `allowsNull`.
    public mutating func entries(of node: Node, what: String, allowsNull: Bool = false) -> [Entry]? {
        if allowsNull, isNull(node) { return [] }
        guard let mapping = node.mapping else {
            report(node, "\(what) must be a mapping of keys to values.")
            return nil
        }
        var entries: [Entry] = []
        for (key, value) in mapping {
            guard let name = key.scalar?.string else {
                report(key, "a key in \(what) must be a plain name.")
                continue
            }
            entries.append(Entry(key: name, keyNode: key, value: value))
        }
        return entries
    }

    /// Reports each key of `entries` that is not in `allowed`.
    public mutating func checkKeys(_ entries: [Entry], allowed: [String], in what: String) {
        for entry in entries where !allowed.contains(entry.key) {
            report(entry.keyNode, "unknown key \"\(entry.key)\" in \(what); the keys are: \(allowed.joined(separator: ", ")).")
        }
    }

    /// Whether `node` is YAML null (`~`, `null`, or nothing).
    public func isNull(_ node: Node) -> Bool {
        guard let scalar = node.scalar, scalar.style == .plain || scalar.style == .any else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    /// The text of a non-null scalar, or reports that `what` must be text.
    public mutating func string(_ node: Node, what: String) -> String? {
        guard let scalar = node.scalar, !isNull(node) else {
            report(node, "\(what) must be a single value.")
            return nil
        }
        return scalar.string
    }

    /// `true` or `false`, or reports that `what` must be one of them.
    public mutating func bool(_ node: Node, what: String) -> Bool? {
        if let scalar = node.scalar, scalar.style == .plain || scalar.style == .any {
            switch scalar.string {
            case "true", "True", "TRUE": return true
            case "false", "False", "FALSE": return false
            default: break
            }
        }
        report(node, "\(what) must be true or false.")
        return nil
    }

    /// A whole number, or reports that `what` must be one.
    public mutating func int(_ node: Node, what: String) -> Int? {
        if let scalar = node.scalar, scalar.style == .plain || scalar.style == .any, let value = Int(scalar.string) {
            return value
        }
        report(node, "\(what) must be a whole number.")
        return nil
    }

    /// The first value of `key` in `entries`.
    public func value(_ key: String, in entries: [Entry]) -> Node? {
        entries.first { $0.key == key }?.value
    }
}
