import EntityModel
import TypedSQL

extension Table {
    /// ` OVERRIDING SYSTEM VALUE` when a column of the table is `GENERATED ALWAYS AS IDENTITY`
    /// (`key: { type: …, identity: always }`), else nothing. Every insert that writes rows with the
    /// ids they had needs it, which such a column refuses otherwise (428C9): an online run's copy,
    /// delta and catch-up, the archive's restores on the way back, and mappings whose rows keep
    /// their ids. Goes between `INSERT INTO t (columns)` and its `SELECT`.
    var overridingSystemValue: SQL {
        columns.contains { $0.generation == .always } ? " OVERRIDING SYSTEM VALUE" : ""
    }
}
