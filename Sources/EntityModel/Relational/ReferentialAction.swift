/// The `ON DELETE` action of a foreign key.
public enum ReferentialAction: String, CaseIterable, Hashable, Sendable, Codable {
    /// `ON DELETE SET NULL`
    case setNull = "SET NULL"
    /// `ON DELETE CASCADE`
    case cascade = "CASCADE"
    /// `ON DELETE RESTRICT`
    case restrict = "RESTRICT"
    /// `ON DELETE NO ACTION`
    case noAction = "NO ACTION"

    /// The SQL keywords for this action, as written after `ON DELETE`.
    public var sql: String { rawValue }
}
