import Foundation

/// The words of a statement's text, in order, as a reader of its first keywords needs them: bare
/// words (keywords and unquoted names) upper-cased, each with where it ends; blanks, comments,
/// string constants and quoted names skipped (a quoted name is one word, `"`). It does not parse
/// SQL; it finds the leading keywords a policy's statement starts with (``PolicyStatementTrust``).
struct SQLWords: Sequence, IteratorProtocol {
    struct Word {
        /// The word, upper-cased (`"` for a quoted name).
        let text: String
        /// Where it starts in the text.
        let start: String.Index
        /// Where it ends in the text.
        let end: String.Index
    }

    private let sql: String
    private var index: String.Index

    init(_ sql: String) {
        self.sql = sql
        index = sql.startIndex
    }

    mutating func next() -> Word? {
        while index < sql.endIndex {
            let character = sql[index]
            let rest = sql[index...]
            if character.isWhitespace {
                index = sql.index(after: index)
            } else if rest.hasPrefix("--") {
                index = rest.firstIndex(where: \.isNewline) ?? sql.endIndex
            } else if rest.hasPrefix("/*") {
                index = rest.range(of: "*/")?.upperBound ?? sql.endIndex
            } else if character == "'" || character == "\"" {
                var end = sql.index(after: index)
                while end < sql.endIndex {
                    if sql[end] == character {
                        let after = sql.index(after: end)
                        // A doubled quote stands for one.
                        if after < sql.endIndex, sql[after] == character { end = sql.index(after: after); continue }
                        end = after
                        break
                    }
                    end = sql.index(after: end)
                }
                index = end
                return Word(text: String(character), start: rest.startIndex, end: end)
            } else if character.isLetter || character == "_" {
                let end = rest.firstIndex { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == "$") } ?? sql.endIndex
                let word = Word(text: sql[index..<end].uppercased(), start: index, end: end)
                index = end
                return word
            } else {
                let start = index
                index = sql.index(after: index)
                return Word(text: String(character), start: start, end: index)
            }
        }
        return nil
    }
}
