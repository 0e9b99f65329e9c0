/// A name the tool gives a row source inside one statement (`source`, `source_status`,
/// `tm_key_0`, `tm_u1`). Written bare when it is letters, digits and `_`, starting with a letter
/// or `_` (PostgreSQL folds it to lower case at each use alike, so it means the same wherever the
/// statement writes it); any other name is quoted, at each use alike. Callers build it from a
/// fixed word (`source`, `tm_…`, never a keyword) and, at most, model names after an `_`.
public struct SQLAlias: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name, as written.
    public let name: String

    public init(_ name: String) {
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

    /// Whether the name can be written bare: letters, digits and `_`, starting with a letter or `_`.
    var isBare: Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }
}

extension SQL.Interpolation {
    /// A row source's alias: bare (`source_status`), or quoted if it is not a plain name.
    public mutating func appendInterpolation(alias: SQLAlias) {
        appendInterpolation(alias.isBare ? SQL(stringLiteral: alias.name) : SQL(fragments: [.identifier(alias.name)]))
    }
}
