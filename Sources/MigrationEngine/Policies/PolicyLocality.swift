/// What a ``MigrationPolicy`` reads besides its source row, which decides how its step runs
/// online (docs/Online.md).
///
/// A **row-local** policy (the default) reads its source row, lookups keyed by its own keys and
/// the rows it made; it writes its own destination row (in place) and the rows it makes once per
/// key. Catch-up can then run it again for the source rows the app changed, and the step runs in
/// *shadow* mode. The runtime checks the claim as the policy runs online (``RowLocalityCheck``):
/// SQL of its own, another row's rows or associations, or per-key state written after the key's
/// first row fail the run, naming the policy and the call, and the tenant stays at its old version.
///
/// A policy that reads other rows says so with ``readsOtherRows(_:)``; its step runs
/// *writes-wait*, and `plan` gives the reason.
public enum PolicyLocality: Sendable, Hashable {
    /// Reads only its source row. `sharedRows` names the destination entities it makes **once
    /// per key** (de-duplicated through a lookup table), each with the source attribute that is
    /// the key: `["Ingredient": "name"]`. Such a row is made at the key's first source row (in id
    /// order), and only there; its lookups are keyed by these attributes' values.
    case rowLocal(sharedRows: [String: String] = [:])
    /// Reads other rows (SQL, other rows' associations, state that depends on every row): why, in
    /// a sentence `plan` shows.
    case readsOtherRows(String)

    /// The entities made once per key, and the source attribute that keys each (empty when the
    /// policy reads other rows).
    public var sharedRows: [String: String] {
        if case let .rowLocal(shared) = self { shared } else { [:] }
    }
}
