import EntityModel

extension TypeChange {
    /// How a change between PostgreSQL types with a length, precision or scale carries its values,
    /// or nil when neither type has one (the plain rules of ``init(from:to:)`` decide):
    /// - `text`, `varchar` and `varchar(n)`: widening when no value can be cut (`varchar(50)` to
    ///   `varchar(200)` or `text`, which PostgreSQL does in the catalog only), else narrowing;
    /// - `numeric(p,s)`: widening when the new type keeps every digit before and after the point
    ///   (`numeric(10,2)` to `numeric(12,2)` or `numeric`), else narrowing (values that do not fit
    ///   fail, fewer decimals round); an integer type widens into a `numeric(p,s)` with room for it;
    /// - `date` to a `timestamp` is widening, back narrowing; a `timestamp(p)` or `time(p)` gaining
    ///   precision is widening, losing it narrowing (values round).
    static func parameterized(from: SQLType, to: SQLType) -> TypeChange? {
        if let old = characterLimit(from), let new = characterLimit(to) {
            return new.holds(old) ? .widening : .narrowing
        }
        if let new = numericLimit(to), let old = numericLimit(from) ?? integerDigits(from).map({ Limit.digits(before: $0, after: 0) }) {
            return new.holds(old) ? .widening : .narrowing
        }
        if numericLimit(from) != nil, integerDigits(to) != nil || to == .real || to == .doublePrecision {
            return .narrowing
        }
        if let old = timeKind(from), let new = timeKind(to) {
            if old.base == "date" { return new.base == "timestamp" ? .widening : nil }
            if new.base == "date" { return old.base == "timestamp" ? .narrowing : nil }
            guard old.base == new.base else { return nil }
            guard old.zoned == new.zoned else { return .narrowing }
            return new.precision >= old.precision ? .widening : .narrowing
        }
        return nil
    }

    /// For `numeric(p,s)` → `numeric(p',s')` with fewer digits before the point (`numeric(8,1)` →
    /// `numeric(8,3)`, 7 → 5): a numeric type that holds every value of both (`numeric(10,3)`),
    /// which a way down gives the column until the archive gave its values back (a value the way up
    /// rounded up, 99999.999 → 100000.0, fits again only then). Nil for any other change.
    static func numericHoldingBoth(_ old: SQLType, _ new: SQLType) -> SQLType? {
        guard case let .digits(oldBefore, oldAfter)? = numericLimit(old), case let .digits(newBefore, newAfter)? = numericLimit(new),
              newBefore < oldBefore else { return nil }
        let after = max(oldAfter, newAfter)
        return SQLType(rawValue: "numeric(\(max(oldBefore, newBefore) + after),\(after))")
    }

    /// Whether a cast from `old` to `new`, both `numeric(p,s)`, keeps every decimal: each value
    /// comes out equal, or does not fit and fails; no value is rounded.
    static func keepsDecimals(from old: SQLType, to new: SQLType) -> Bool {
        guard case let .digits(_, oldAfter)? = numericLimit(old), case let .digits(_, newAfter)? = numericLimit(new) else { return false }
        return newAfter >= oldAfter
    }

    /// The digits a `numeric(p,s)` holds before the point and after it (nil: another type).
    static func numericDigits(_ type: SQLType) -> (before: Int, after: Int)? {
        guard case let .digits(before, after)? = numericLimit(type) else { return nil }
        return (before, after)
    }

    /// The room a type leaves its values: none at all, a length, or digits before and after the point.
    private enum Limit {
        case unlimited
        case length(Int)
        case digits(before: Int, after: Int)

        /// Whether every value that fits `other` fits this.
        func holds(_ other: Limit) -> Bool {
            switch (self, other) {
            case (.unlimited, _): true
            case (.length(let new), .length(let old)): new >= old
            case (.digits(let before, let after), .digits(let oldBefore, let oldAfter)): before >= oldBefore && after >= oldAfter
            default: false
            }
        }
    }

    /// For `text`, `character varying` and `character varying(n)`: the length limit.
    private static func characterLimit(_ type: SQLType) -> Limit? {
        if type == .text || type.rawValue == "character varying" { return .unlimited }
        guard let match = type.rawValue.wholeMatch(of: /character varying\(([0-9]+)\)/), let length = Int(match.1) else { return nil }
        return .length(length)
    }

    /// For `numeric` and `numeric(p,s)`: the digits before and after the point.
    private static func numericLimit(_ type: SQLType) -> Limit? {
        if type == .numeric { return .unlimited }
        guard let match = type.rawValue.wholeMatch(of: /numeric\(([0-9]+),([0-9]+)\)/),
              let precision = Int(match.1), let scale = Int(match.2) else { return nil }
        return .digits(before: precision - scale, after: scale)
    }

    /// The decimal digits an integer type's values may have.
    private static func integerDigits(_ type: SQLType) -> Int? {
        [SQLType.smallint: 5, .integer: 10, .bigint: 19][type]
    }

    /// `date`, `time(p)` and `timestamp(p)` with or without time zone: base, zone and precision
    /// (6 when none is given).
    private static func timeKind(_ type: SQLType) -> (base: String, zoned: Bool, precision: Int)? {
        if type.rawValue == "date" { return ("date", false, 0) }
        if type == .timestamptz { return ("timestamp", true, 6) }
        guard let match = type.rawValue.wholeMatch(of: /(timestamp|time)(?:\(([0-9])\))? (with|without) time zone/) else { return nil }
        return (String(match.1), match.3 == "with", match.2.flatMap { Int($0) } ?? 6)
    }
}
