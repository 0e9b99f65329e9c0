import EntityModel
import TypedSQL

extension Table {
    /// ` OVERRIDING SYSTEM VALUE` when a column of the table is `GENERATED ALWAYS AS IDENTITY`
    /// (`key: { type: …, identity: always }`), else nothing: an online run copies rows into the
    /// shadow (and the delta, and from there into the shadow) with the ids they have, which such a
    /// column refuses otherwise (428C9). Goes between `INSERT INTO t (columns)` and its `SELECT`.
    var overridingSystemValue: SQL {
        columns.contains { $0.generation == .always } ? " OVERRIDING SYSTEM VALUE" : ""
    }
}
