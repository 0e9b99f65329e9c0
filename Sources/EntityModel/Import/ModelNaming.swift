/// How importers turn SQL names into model names and keep them unique.
public enum ModelNaming {
    /// `recipe_ingredient` → `RecipeIngredient`: each `_`-separated word capitalised. Nil when the
    /// result is not a model identifier.
    static func upperCamel(_ snake: String) -> String? {
        let words = snake.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }
        let name = words.joined()
        return SQLName.isIdentifier(name) ? name : nil
    }

    /// `prep_minutes` → `prepMinutes`. Nil when the result is not a model identifier.
    static func lowerCamel(_ snake: String) -> String? {
        guard let upper = upperCamel(snake) else { return nil }
        let name = upper.prefix(1).lowercased() + upper.dropFirst()
        return SQLName.isIdentifier(name) ? name : nil
    }

    /// A model name whose default SQL name is `sqlName`, if there is one (`prep_minutes` →
    /// `prepMinutes`, `recipe` → `recipe`); nil when none is (`Order`, `imageURL`), so the
    /// model must name the SQL name explicitly.
    static func name(forSQLName sqlName: String, upper: Bool) -> String? {
        guard let name = upper ? upperCamel(sqlName) : lowerCamel(sqlName), name.snakeCased == sqlName else { return nil }
        return name
    }

    /// A plural for a generated to-many name: `recipe` → `recipes`, `category` → `categories`,
    /// `box` → `boxes`.
    static func plural(_ word: String) -> String {
        let lower = word.lowercased()
        if lower.hasSuffix("y"), let before = lower.dropLast().last, !"aeiou".contains(before) { return word.dropLast() + "ies" }
        if ["s", "x", "z", "ch", "sh"].contains(where: { lower.hasSuffix($0) }) { return word + "es" }
        return word + "s"
    }

    /// `base`, or `base2`, `base3`, … : the first whose snake_case is not in `taken`; inserts it.
    static func unique(_ base: String, in taken: inout Set<String>) -> String {
        var candidate = base
        var number = 2
        while taken.contains(candidate.snakeCased) || SQLName.reservedColumns.contains(candidate.snakeCased) {
            candidate = base + String(number)
            number += 1
        }
        taken.insert(candidate.snakeCased)
        return candidate
    }

    /// A family name for an imported schema: its camelCase (`tenant_acme` → `TenantAcme`), or the
    /// schema's name as it is when that is not an identifier.
    public static func familyName(forSchema schema: String) -> String {
        upperCamel(schema) ?? schema
    }
}
