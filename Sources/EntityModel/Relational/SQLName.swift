/// Rules for the names TenantMigrator writes into SQL.
public enum SQLName {
    /// PostgreSQL's limit on an identifier, in bytes (`NAMEDATALEN - 1`).
    public static let maximumLength = 63

    /// Column names the tool owns in every table that needs them: the primary key and the
    /// inheritance discriminator. Entity properties may not use them.
    public static let reservedColumns: Set<String> = [primaryKeyColumn, discriminatorColumn]

    /// The primary-key column of every entity table.
    public static let primaryKeyColumn = "id"

    /// The sequence a `serial` key of `table` owns, as PostgreSQL names it: `<table>_id_seq`
    /// (for names within ``maximumLength``; PostgreSQL shortens longer ones).
    public static func serialSequence(ofTable table: String) -> String {
        "\(table)_\(primaryKeyColumn)_seq"
    }

    /// The discriminator column of a table that holds an inheritance hierarchy.
    public static let discriminatorColumn = "entity"

    /// Whether `name` is an identifier a model may use: an ASCII letter, then letters, digits, `_`.
    public static func isIdentifier(_ name: String) -> Bool {
        name.wholeMatch(of: /[A-Za-z][A-Za-z0-9_]*/) != nil
    }

    /// The prefix of every name the tool itself gives in a tenant's schema (`_tm_archive`, online
    /// shadows, an enum type moved aside): a model's tables, columns, sequences and enum types may
    /// not start with it. Other names starting with `_` (Prisma's `_CategoryToPost`) are the
    /// application's.
    public static let toolPrefix = "_tm_"

    /// Whether `name` starts with ``toolPrefix``.
    public static func isToolName(_ name: String) -> Bool {
        name.hasPrefix(toolPrefix)
    }

    /// Whether `name` is reserved for the tool: `id`, `entity`, or anything starting with `_tm_`.
    public static func isReserved(_ name: String) -> Bool {
        isToolName(name) || reservedColumns.contains(name)
    }

    /// Whether `name` is an SQL name a model may give a table, column, sequence or enum type
    /// (`table:`, `column:`, `joinTable:`): an ASCII letter or `_`, then letters, digits, `_`. Model
    /// names (entities, properties) are ``isIdentifier(_:)``: they start with a letter.
    public static func isSQLName(_ name: String) -> Bool {
        name.wholeMatch(of: /[A-Za-z_][A-Za-z0-9_]*/) != nil
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
