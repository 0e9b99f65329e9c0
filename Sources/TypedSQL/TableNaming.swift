/// How a statement spells the names it gives in the tenant's schema: its tables, their indexes,
/// constraints and sequences, and the model's enum types (`table:`, `objectName:` and
/// `qualifiedNameLiteral:` in ``SQL``). PostgreSQL keeps tables, indexes, sequences and types in one
/// namespace per schema, and an index-backed constraint takes its index's name, so one rule names
/// them all.
///
/// ``model`` is the model's own names: every offline run, and the online shadow on plain
/// PostgreSQL, which lives in a private schema of its own (its security rests on the app role being
/// unable to name that schema). ``citusShadow`` is for a shadow built inside the tenant's schema
/// next to the live tables, as Citus needs (a table is colocated with the tenant's only there;
/// docs/Citus.md): `_tm_shadow_recipe` for `recipe`, `_tm_shadow_recipe_pkey` for its key.
public struct TableNaming: Sendable, Hashable {
    /// What goes before each of the model's names.
    public let prefix: String

    public init(prefix: String) {
        self.prefix = prefix
    }

    /// The model's own names.
    public static let model = TableNaming(prefix: "")

    /// The names of a shadow built inside the tenant's schema.
    public static let citusShadow = TableNaming(prefix: "_tm_shadow_")

    /// The names of a catch-up round's delta built inside the tenant's schema, next to the live
    /// tables and the shadow (Citus): made and dropped within the round's transaction.
    public static let citusDelta = TableNaming(prefix: "_tm_delta_")

    /// PostgreSQL's longest name, in bytes (`NAMEDATALEN - 1`); a longer one is cut.
    public static let maximumNameBytes = 63

    /// The name `modelName` has under this naming.
    public func name(_ modelName: String) -> String {
        prefix.isEmpty ? modelName : prefix + modelName
    }

    /// The model's name that `name` spells under this naming (as the server reports a table in an
    /// error), or nil when `name` is not spelled so.
    public func modelName(of name: String) -> String? {
        name.hasPrefix(prefix) ? String(name.dropFirst(prefix.count)) : nil
    }

    /// The names of `modelNames` whose name under this naming PostgreSQL would cut (and so could
    /// make two into one, or meet a live table's): a run under this naming must refuse them first.
    public func tooLong(_ modelNames: [String]) -> [String] {
        prefix.isEmpty ? [] : modelNames.filter { name($0).utf8.count > Self.maximumNameBytes }
    }
}
