extension String {
    /// This name in snake_case, the way entity and property names become SQL names:
    /// `RecipeIngredient` → `recipe_ingredient`, `unitOfMeasure` → `unit_of_measure`,
    /// `imageURL` → `image_url`, `URLString` → `url_string`, `v2Name` → `v2_name`.
    ///
    /// An underscore goes before an uppercase letter that follows a lowercase letter or a digit, and
    /// before the last capital of an acronym that is followed by a lowercase letter. Existing
    /// underscores are kept and never doubled. Only ASCII letters change case.
    public var snakeCased: String {
        let scalars = Array(unicodeScalars)
        var out = String.UnicodeScalarView()
        for (index, scalar) in scalars.enumerated() {
            guard scalar.isASCIIUppercase else {
                out.append(scalar)
                continue
            }
            if index > 0 {
                let previous = scalars[index - 1]
                let nextIsLowercase = index + 1 < scalars.count && scalars[index + 1].isASCIILowercase
                let startsWord = previous.isASCIILowercase || previous.isASCIIDigit
                    || (previous.isASCIIUppercase && nextIsLowercase)
                if startsWord && previous != "_" { out.append("_") }
            }
            out.append(Unicode.Scalar(scalar.value + 32)!)
        }
        return String(out)
    }
}

extension Unicode.Scalar {
    var isASCIIUppercase: Bool { ("A"..."Z").contains(self) }
    var isASCIILowercase: Bool { ("a"..."z").contains(self) }
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
