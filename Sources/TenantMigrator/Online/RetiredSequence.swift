import LibPQ
import TypedSQL

/// A sequence an online cutover retires: the tenant's own (a model sequence, or a `serial` or
/// identity key's) that the new version's replaces, and that a session may still draw from.
enum RetiredSequence {
    /// Makes the retired sequence `old` (an expression giving its oid) give no value any more: its
    /// last value drawn, and its bound (MAXVALUE, or MINVALUE for a descending one) set there,
    /// without CYCLE. A session that waited for it during the cutover (it found the sequence by
    /// name, or through `pg_get_serial_sequence`, before the commit) then fails (2200H, "reached
    /// maximum value") instead of taking an id the new sequence gives again. Its position stays
    /// readable for an operator. Used for the model's sequences and for a `serial` or identity
    /// key's, which moves out with its table (OnlineCutover.swift). On Citus see ``runOut(_:on:)``.
    static func exhaust(_ old: SQL, on connection: Connection) throws {
        guard let row = try connection.execute("""
            SELECT q.seqrelid::pg_catalog.regclass::pg_catalog.text, q.seqincrement, q.seqmin, q.seqmax,
                   pg_catalog.setval(q.seqrelid, coalesce(pg_catalog.pg_sequence_last_value(q.seqrelid), q.seqstart), true)
            FROM pg_catalog.pg_sequence AS q WHERE q.seqrelid = \(old)
            """).first else { return }
        let name = try row.decode(String.self, at: 0), increment = try row.decode(Int64.self, at: 1)
        let (minimum, maximum, last) = (try row.decode(Int64.self, at: 2), try row.decode(Int64.self, at: 3), try row.decode(Int64.self, at: 4))
        // The bound the sequence runs towards goes to its last value; the other one, when it is
        // there already, one step away (PostgreSQL wants MINVALUE below MAXVALUE).
        let limits: SQL = increment > 0
            ? (minimum < last ? "" : "MINVALUE \(int: last - 1) ") + "MAXVALUE \(int: last)"
            : "MINVALUE \(int: last)" + (maximum > last ? "" : " MAXVALUE \(int: last + 1)")
        // (The name as PostgreSQL prints a regclass: qualified and quoted.)
        try connection.execute("ALTER SEQUENCE \(quotedByServer: name) START WITH \(int: last) \(limits) NO CYCLE")
    }

    /// Makes the retired sequence `old` (an expression giving its oid) give no value any more by
    /// its position alone: set to the bound it runs towards (MAXVALUE, or MINVALUE for a descending
    /// one), drawn. A session that waited for it then fails (2200H). For the swap inside the tenant's
    /// schema on Citus (InSchemaOnlineRun.swift), where a `serial` or identity key's sequence is
    /// renamed aside with its table and dropped with it after the commit, and where Citus refuses
    /// ``exhaust(_:on:)``'s `ALTER SEQUENCE` on a distributed table's sequence (XX000, "Altering a
    /// distributed sequence is currently not supported"); its last position is not kept.
    static func runOut(_ old: SQL, on connection: Connection) throws {
        try connection.execute("""
            SELECT pg_catalog.setval(q.seqrelid, CASE WHEN q.seqincrement > 0 THEN q.seqmax ELSE q.seqmin END, true)
            FROM pg_catalog.pg_sequence AS q WHERE q.seqrelid = \(old)
            """)
    }
}
