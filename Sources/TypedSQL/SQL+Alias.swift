/// A name the tool gives a row source inside one statement (`source`, `source_status`,
/// `tm_key_0`, `tm_u1`), written bare: letters, digits and `_`, starting with a letter or `_`.
/// PostgreSQL folds such a name to lower case at each use alike, so it means the same wherever
/// the statement writes it. Never a name from a model or an author (those are `id:`), and never a
/// keyword: callers build it from a fixed word (`source`, `tm_…`) and, at most, model names after
/// an `_`.
public struct SQLAlias: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name, as written.
    public let name: String

    /// An alias; `name` must be letters, digits and `_`, starting with a letter or `_`.
    public init(_ name: String) {
        precondition(Self.isBare(name), "an alias is letters, digits and _, starting with a letter or _: \(name)")
        self.name = name
    }

    public init(stringLiteral name: String) {
        self.init(name)
    }

    /// The alias followed by `_suffix`: `source_status` from `source` and `status`.
    public func appending(_ suffix: String) -> SQLAlias {
        SQLAlias(name + "_" + suffix)
    }

    public var description: String { name }

    /// Whether `name` can be written bare as an alias.
    static func isBare(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }
}

extension SQL.Interpolation {
    /// A row source's alias, bare: `source_status`.
    public mutating func appendInterpolation(alias: SQLAlias) {
        appendInterpolation(SQL(stringLiteral: alias.name))
    }
}
