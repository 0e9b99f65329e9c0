extension SQLName {
    /// Whether the SQL text `condition` names `column`: as a word of its own where the name needs no
    /// quotes (`price >= 0` names `price`, not `price_old`), or in double quotes (`"starCount" > 0`).
    /// The columns a check reads, so that a change of one puts the check back.
    static func mentions(_ condition: String, column: String) -> Bool {
        if condition.contains("\"" + column.replacingOccurrences(of: "\"", with: "\"\"") + "\"") { return true }
        guard column.wholeMatch(of: /[a-z_][a-z0-9_$]*/) != nil else { return false }
        let lowered = condition.lowercased()
        var searchStart = lowered.startIndex
        while let range = lowered.range(of: column, range: searchStart..<lowered.endIndex) {
            let before = range.lowerBound == lowered.startIndex ? nil : lowered[lowered.index(before: range.lowerBound)]
            let after = range.upperBound == lowered.endIndex ? nil : lowered[range.upperBound]
            func isWordCharacter(_ character: Character?) -> Bool {
                guard let character else { return false }
                return character.isLetter || character.isNumber || character == "_" || character == "$" || character == "\""
            }
            if !isWordCharacter(before) && !isWordCharacter(after) { return true }
            searchStart = range.upperBound
        }
        return false
    }
}
