import CLibPQ

extension ConnectionString {
    /// libpq's connection keywords (`host`, `port`, `dbname`, `sslmode`, …), from `PQconndefaults`.
    static var keywords: [String] {
        guard let options = PQconndefaults() else { return [] }
        defer { PQconninfoFree(options) }
        var keywords: [String] = []
        var option = options
        while let keyword = option.pointee.keyword {
            keywords.append(String(cString: keyword))
            option += 1
        }
        return keywords
    }

    /// The keyword a misspelt one was probably meant to be (`sslmod` → `sslmode`): the nearest, at
    /// most two edits away; nil when none is that near.
    ///
    /// The misspelt word itself is never shown: in `password=a b=c`, the unknown keyword `b` is
    /// part of the password.
    static func keyword(near unknown: String) -> String? {
        let candidates = keywords.map { (keyword: $0, distance: editDistance(Array(unknown.lowercased()), Array($0))) }
            .filter { $0.distance <= min(2, unknown.count / 2) }
        return candidates.min { $0.distance < $1.distance }?.keyword
    }

    /// The Levenshtein distance between `a` and `b`.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
