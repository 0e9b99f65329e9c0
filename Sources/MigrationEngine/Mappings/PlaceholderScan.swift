/// Where a mapping expression's placeholders (`{schema}`, `{source:Entity}`, `{enum:name}`) are:
/// each `{…}` in the SQL itself, not in its quoted text. A string literal (`'{a,b}'`, `E'…'` with
/// backslash escapes), a quoted identifier (`"{x}"`), a dollar-quoted string (`$$…$$`,
/// `$tag$…$tag$`) and a comment (`-- …`, `/* … */`) are read past as PostgreSQL's lexer reads them,
/// so braces there stay the text's own.
enum PlaceholderScan {
    /// The ranges of the placeholders of `sql`, braces included, in order.
    static func placeholders(in sql: String) -> [Range<String.Index>] {
        let characters = Array(sql.indices)
        var found: [Range<String.Index>] = []
        var index = 0
        func character(_ offset: Int) -> Character? { offset < characters.count ? sql[characters[offset]] : nil }
        /// The offset just past the quoted text that opens at `index` with `quote`, where a doubled
        /// quote is the quote itself and, with `backslashes`, a backslash escapes the next character.
        func pastQuoted(_ quote: Character, backslashes: Bool) -> Int {
            var offset = index + 1
            while let current = character(offset) {
                if backslashes, current == "\\" { offset += 2; continue }
                if current == quote {
                    if character(offset + 1) == quote { offset += 2; continue }
                    return offset + 1
                }
                offset += 1
            }
            return characters.count
        }
        while let current = character(index) {
            switch current {
            case "'":
                let escaped = index > 0 && ["E", "e"].contains(character(index - 1)) && !(index > 1 && character(index - 2).map(isIdentifierCharacter) == true)
                index = pastQuoted("'", backslashes: escaped)
            case "\"":
                index = pastQuoted("\"", backslashes: false)
            case "-" where character(index + 1) == "-":
                while let next = character(index), next != "\n" { index += 1 }
            case "/" where character(index + 1) == "*":
                index += 2
                while index < characters.count, !(character(index) == "*" && character(index + 1) == "/") { index += 1 }
                index = min(index + 2, characters.count)
            case "$" where !(index > 0 && character(index - 1).map(isIdentifierCharacter) == true):
                // `$tag$` (a tag is empty or an identifier not starting with a digit); `$1` is a parameter.
                var end = index + 1
                while let next = character(end), isIdentifierCharacter(next), !(end == index + 1 && next.isNumber) { end += 1 }
                guard character(end) == "$" else { index += 1; continue }
                let tag = String(sql[characters[index]...characters[end]])
                let body = sql[characters[end]...].dropFirst()
                if let close = body.range(of: tag) {
                    index = characters.firstIndex(of: close.upperBound) ?? characters.count
                } else {
                    index = characters.count
                }
            case "{":
                guard let close = (index + 1..<characters.count).first(where: { sql[characters[$0]] == "}" }) else { return found }
                found.append(characters[index]..<sql.index(after: characters[close]))
                index = close + 1
            default:
                index += 1
            }
        }
        return found
    }

    private static func isIdentifierCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
    }
}
