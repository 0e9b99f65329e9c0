/// Rules for the names TenantMigrator writes into SQL.
public enum SQLName {
    /// PostgreSQL's limit on an identifier, in bytes (`NAMEDATALEN - 1`).
    public static let maximumLength = 63

    /// Column names the tool owns in every table that needs them: the primary key and the
    /// inheritance discriminator. Entity properties may not use them.
    public static let reservedColumns: Set<String> = [primaryKeyColumn, discriminatorColumn]

    /// The primary-key column of every entity table.
    public static let primaryKeyColumn = "id"

    /// The discriminator column of a table that holds an inheritance hierarchy.
    public static let discriminatorColumn = "entity"

    /// Whether `name` is an identifier a model may use: an ASCII letter, then letters, digits, `_`.
    public static func isIdentifier(_ name: String) -> Bool {
        name.wholeMatch(of: /[A-Za-z][A-Za-z0-9_]*/) != nil
    }

    /// Whether `name` is reserved for the tool: `id`, `entity`, or anything starting with `_`.
    public static func isReserved(_ name: String) -> Bool {
        name.hasPrefix("_") || reservedColumns.contains(name)
    }

    /// A derived name (constraint, index, join table, join column): `parts` joined with `_`, then
    /// `_suffix`. When that exceeds 63 bytes, the joined parts are cut and followed by `_` and the
    /// first 8 hex digits of the SHA-256 of the full name, before the suffix, so the result is
    /// deterministic, unique in practice, and fits: `a_very_long…_1f2e3d4c_fkey`.
    public static func derived(_ parts: [String], suffix: String? = nil) -> String {
        let base = parts.joined(separator: "_")
        let tail = suffix.map { "_" + $0 } ?? ""
        let full = base + tail
        guard full.utf8.count > maximumLength else { return full }
        let hash = "_" + String(SHA256Digest.hex(full).prefix(8))
        let room = maximumLength - hash.utf8.count - tail.utf8.count
        var cut = String(decoding: base.utf8.prefix(room), as: UTF8.self)
        while cut.hasSuffix("_") { cut.removeLast() }
        return cut + hash + tail
    }
}
