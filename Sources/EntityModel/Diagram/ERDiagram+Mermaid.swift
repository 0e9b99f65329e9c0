extension ERDiagram {
    /// The diagram as a Mermaid `erDiagram`, ready for a ```` ```mermaid ```` block (GitHub and
    /// GitLab render it) or the Mermaid CLI.
    ///
    /// Rows are `type name [PK|FK|UK] "notes"`; relationship lines use crow's-foot cardinality
    /// (`Recipe |o--o{ RecipeIngredient`) with both relationship names and their delete rules in the
    /// label, left entity's first; inheritance is a dashed line `Child |o..|| Parent : "is a"`. In a
    /// marked diagram, a change leads the row's notes or the line's label: `[added]`, `[removed]`,
    /// `[renamed from instructions]`, `[moved from Attachment]`, `[changed, was int16]`.
    ///
    /// - Parameter title: Written as the diagram's front-matter title.
    public func mermaid(title: String? = nil) -> String {
        var lines: [String] = []
        if let title { lines += ["---", "title: " + MermaidText.frontMatter(title), "---"] }
        lines.append("erDiagram")
        for box in boxes {
            lines.append("    \(MermaidText.entity(box.name)) {")
            for (index, row) in box.rows.enumerated() {
                var notes = row.change.map { ["[\($0.phrase)]"] } ?? []
                if index == 0, let change = box.change { notes.insert("[entity \(change.phrase)]", at: 0) }
                notes += row.notes
                var line = "        \(MermaidText.word(row.type)) \(MermaidText.word(row.name))"
                if !row.keys.isEmpty { line += " " + row.keys.joined(separator: ", ") }
                if !notes.isEmpty { line += " " + MermaidText.quoted(notes.joined(separator: ", ")) }
                lines.append(line)
            }
            lines.append("    }")
        }
        for link in links {
            var label = [link.right.label, link.left.label].compactMap { $0 }.joined(separator: " / ")
            if let joinTable = link.joinTable { label += ", table \(joinTable)" }
            if let change = link.change { label = "[\(change.phrase)] " + label }
            lines.append("    \(MermaidText.entity(link.left.entity)) \(link.left.multiplicity.mermaidLeft)--"
                + "\(link.right.multiplicity.mermaidRight) \(MermaidText.entity(link.right.entity)) : \(MermaidText.quoted(label))")
        }
        for link in inheritance {
            let label = (link.change.map { "[\($0.phrase)] " } ?? "") + "is a"
            lines.append("    \(MermaidText.entity(link.child)) |o..|| \(MermaidText.entity(link.parent)) : \(MermaidText.quoted(label))")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension ERDiagram.Multiplicity {
    /// The cardinality token on the left of a Mermaid relationship.
    var mermaidLeft: String {
        switch self {
        case .zeroOrOne: "|o"
        case .exactlyOne: "||"
        case .zeroOrMore: "}o"
        case .oneOrMore: "}|"
        }
    }

    /// The cardinality token on the right of a Mermaid relationship.
    var mermaidRight: String {
        switch self {
        case .zeroOrOne: "o|"
        case .exactlyOne: "||"
        case .zeroOrMore: "o{"
        case .oneOrMore: "|{"
        }
    }
}

/// Spelling names and text so that Mermaid's `erDiagram` grammar reads them as written.
enum MermaidText {
    /// Words the grammar reads as keywords (case-insensitively) where an entity name may stand.
    private static let keywords: Set<String> = [
        "erdiagram", "one", "many", "only", "to", "end", "class", "classdef", "style", "subgraph", "u", "direction",
    ]

    /// An entity name: as it is, or in double quotes when it is one of the grammar's keywords.
    static func entity(_ name: String) -> String {
        keywords.contains(name.lowercased()) ? "\"\(name)\"" : name
    }

    /// A type or attribute name inside a block: in backquotes when the grammar would read it as a
    /// key (`PK`, `FK`, `UK`).
    static func word(_ word: String) -> String {
        ["pk", "fk", "uk"].contains(word.lowercased()) ? "`\(word)`" : word
    }

    /// Text in double quotes, which Mermaid's comments and labels cannot escape: a double quote
    /// becomes a single one, line breaks become spaces, other control characters are escaped
    /// (``VisibleText``).
    static func quoted(_ text: String) -> String {
        let cleaned = VisibleText.escaped(text, keeping: ["\n", "\r"]).map { character -> String in
            switch character {
            case "\"": "'"
            case "\n", "\r", "\r\n": " "
            default: String(character)
            }
        }.joined()
        return "\"" + cleaned + "\""
    }

    /// A front-matter value: a YAML double-quoted string, its control characters escaped.
    static func frontMatter(_ text: String) -> String {
        YAMLScalar.quoted(text)
    }
}
