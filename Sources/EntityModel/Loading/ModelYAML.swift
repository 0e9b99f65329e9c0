import Yams

/// YAML as model files (`family.yaml`, version files) and mapping files may write it: one
/// document, without anchors or aliases (`&name`, `*name`).
///
/// An alias stands for the whole node its anchor names, so a few hundred bytes of aliases to
/// aliases stand for gigabytes once something walks the tree (a "billion laughs"). Yams composes
/// an alias as the anchored node itself, sharing it, so nothing is expanded until the tree is read;
/// this refuses the file at the first anchor, with its line, before anything reads it.
public enum ModelYAML {
    /// Why a file was refused before it was read, and where.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        /// The line, starting at 1.
        public var line: Int
        /// The column, starting at 1, when known.
        public var column: Int?
        /// What is wrong, in a sentence.
        public var message: String

        public var description: String { message }
    }

    /// The root node of `yaml`, nil when the document is empty.
    ///
    /// - Throws: Yams' `YamlError` when the text is not YAML; ``Refusal`` at the first anchor or
    ///   alias, or when the tree has more nodes than the text has bytes (which only sharing can do).
    public static func compose(_ yaml: String) throws -> Node? {
        // The parser holds the anchors that the nodes refer to weakly: it must outlive the walk.
        let parser = try Parser(yaml: yaml)
        guard let root = try parser.singleRoot() else { return nil }
        try withExtendedLifetime(parser) { try refuseAnchors(in: root, atMost: yaml.utf8.count + 1) }
        return root
    }

    /// Walks `root` in document order without recursion (libyaml bounds the depth too), throwing at
    /// the first node with an anchor, or once more than `limit` nodes were seen.
    private static func refuseAnchors(in root: Node, atMost limit: Int) throws {
        var pending = [root]
        var seen = 0
        while let node = pending.popLast() {
            seen += 1
            let line = node.mark?.line ?? 1, column = node.mark?.column
            if let anchor = node.anchor {
                throw Refusal(line: line, column: column, message: "YAML anchors and aliases (&\(anchor.rawValue), *\(anchor.rawValue)) "
                    + "are not allowed in model and mapping files; write each value out.")
            }
            if case .alias = node {
                throw Refusal(line: line, column: column, message: "YAML aliases are not allowed in model and mapping files; write each value out.")
            }
            guard seen <= limit else {
                throw Refusal(line: root.mark?.line ?? 1, column: nil, message: "the document holds more values than it has characters, "
                    + "which only YAML aliases can do; they are not allowed in model and mapping files.")
            }
            switch node {
            case .mapping(let mapping):
                for (key, value) in mapping.reversed() { pending += [value, key] }
            case .sequence(let sequence):
                pending += sequence.reversed()
            case .scalar, .alias:
                break
            }
        }
    }
}
