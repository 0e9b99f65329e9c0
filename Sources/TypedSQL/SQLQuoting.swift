/// Something that quotes identifiers and literals for SQL text.
///
/// The real quoter is LibPQ's `Connection`, which implements both with libpq's
/// `PQescapeIdentifier` and `PQescapeLiteral` (see `Connection+SQLQuoting.swift`). DDL rendering never
/// quotes by hand.
public protocol SQLQuoting {
    /// `identifier` quoted as an SQL identifier: `recipe` → `"recipe"`.
    func quoteIdentifier(_ identifier: String) -> String
    /// `literal` quoted as an SQL string literal: `Other` → `'Other'`.
    func quoteLiteral(_ literal: String) -> String
}
