/// A checker for the subset of Mermaid's `erDiagram` grammar the diagrams use, written from
/// Mermaid's own lexer and grammar (`erDiagram.jison`), since no Mermaid renderer runs offline.
///
/// It reads the text line by line, as Mermaid's lexer does: optional front matter, `erDiagram`,
/// entity blocks whose rows are `type name [PK|FK|UK[, …]] ["comment"]`, and relationship
/// statements `A <card><--|..><card> B : "label"`. Names that Mermaid's case-insensitive lexer
/// would read as keywords, or rows it would read as keys, are errors unless quoted. It also
/// checks that every entity a relationship names has a block. Each problem names its line.
public enum MermaidERSyntax {
    /// Words Mermaid's lexer turns into tokens other than a name (it matches literal rules with a
    /// word boundary, case-insensitively).
    public static let keywords: Set<String> = [
        "erdiagram", "one", "many", "only", "to", "end", "class", "classdef", "style", "subgraph", "u", "direction",
    ]

    /// Every problem in `text`, as `line N: …`; none for a valid diagram.
    public static func problems(in text: String) -> [String] {
        var problems: [String] = []
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        var index = 0
        if lines.first == "---" {
            guard let end = lines.dropFirst().firstIndex(of: "---") else { return ["line 1: front matter is not closed"] }
            for line in lines[1..<end] where line.wholeMatch(of: /[a-zA-Z]+: .+/) == nil {
                problems.append("line \(lines.firstIndex(of: line)! + 1): front matter is not `key: value`")
            }
            index = end + 1
        }
        guard index < lines.count, lines[index] == "erDiagram" else { return problems + ["line \(index + 1): expected erDiagram"] }
        index += 1
        var declared: Set<String> = []
        var used: [(name: String, line: Int)] = []
        var inBlock = false
        for (offset, line) in lines[index...].enumerated() {
            let number = index + offset + 1
            if inBlock {
                if line == "    }" { inBlock = false; continue }
                if let problem = rowProblem(line) { problems.append("line \(number): \(problem): \(line)") }
                continue
            }
            if let match = line.wholeMatch(of: /\ {4}(\S+) \{/) {
                guard let name = entityName(String(match.1)) else {
                    problems.append("line \(number): not an entity name Mermaid reads as one: \(match.1)")
                    continue
                }
                if !declared.insert(name).inserted { problems.append("line \(number): \(name) has two blocks") }
                inBlock = true
                continue
            }
            let relationship = /\ {4}(\S+) (\|o|\|\||\}o|\}\|)(--|\.\.)(o\||\|\||o\{|\|\{) (\S+) : "([^"%\\\r\n]+)"/
            if let match = line.wholeMatch(of: relationship) {
                for token in [String(match.1), String(match.5)] {
                    if let name = entityName(token) {
                        used.append((name, number))
                    } else {
                        problems.append("line \(number): not an entity name Mermaid reads as one: \(token)")
                    }
                }
                continue
            }
            problems.append("line \(number): neither a block nor a relationship: \(line)")
        }
        if inBlock { problems.append("the last block is not closed") }
        for use in used where !declared.contains(use.name) {
            problems.append("line \(use.line): \(use.name) has no block")
        }
        return problems
    }

    /// The name `token` stands for, or nil when Mermaid would not read it as an entity name.
    private static func entityName(_ token: String) -> String? {
        if let quoted = token.wholeMatch(of: /"([^"%\\\r\n]+)"/) { return String(quoted.1) }
        guard token.wholeMatch(of: /[A-Za-z_][A-Za-z0-9_]*/) != nil, !keywords.contains(token.lowercased()) else { return nil }
        return token
    }

    /// What is wrong with a row of a block, if anything.
    private static func rowProblem(_ line: String) -> String? {
        let row = /\ {8}(`[^`]+`|\S+) (`[^`]+`|\S+)((?: (?:PK|FK|UK)(?:, (?:PK|FK|UK))*)?)((?: "[^"]*")?)/
        guard let match = line.wholeMatch(of: row) else { return "not `type name [keys] [\"comment\"]`" }
        for word in [String(match.1), String(match.2)] where !word.hasPrefix("`") {
            let attributeWord = /[\*A-Za-z_\u{C0}-\u{FFFF}][A-Za-z0-9\-_\[\]\(\)\.,\u{C0}-\u{FFFF}\*]*/
            guard word.wholeMatch(of: attributeWord) != nil else { return "\(word) is not an attribute word" }
            guard !["pk", "fk", "uk"].contains(word.lowercased()) else { return "\(word) would be read as a key" }
        }
        return nil
    }
}
