extension SQL.Interpolation {
    /// A floating-point number as digits, as Swift prints it (`0.5`, `1e-05`). One without digits
    /// (an infinity, NaN) as the string constant PostgreSQL reads it from (`'Infinity'`), to be
    /// followed by a cast to its type.
    public mutating func appendInterpolation(double value: Double) {
        if value.isFinite {
            appendInterpolation(SQL(stringLiteral: "\(value)"))
        } else {
            appendInterpolation(literal: value.isNaN ? "NaN" : value > 0 ? "Infinity" : "-Infinity")
        }
    }

    /// An exact decimal number as written, its scale kept (`12.50`, `-1.5e-3`). Text that is no
    /// such number goes in as a string constant cast to `numeric` (PostgreSQL then says what is
    /// wrong with it), never as SQL.
    public mutating func appendInterpolation(decimal text: String) {
        if text.wholeMatch(of: /[-+]?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/) != nil {
            appendInterpolation(SQL(stringLiteral: text))
        } else {
            appendInterpolation(literal: text)
            appendInterpolation(SQL(stringLiteral: "::numeric"))
        }
    }
}
