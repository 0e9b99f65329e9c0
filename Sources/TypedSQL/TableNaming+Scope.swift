/// A schema and the naming its names take in statements rendered for it: what a run on a shadow
/// inside the tenant's schema hands down to everything it calls (``TableNaming/rendering(_:in:_:)``).
public struct SchemaNaming: Sendable, Hashable {
    /// The schema whose names the naming spells.
    public let schema: String
    /// How they are spelled.
    public let tables: TableNaming

    public init(schema: String, tables: TableNaming) {
        self.schema = schema
        self.tables = tables
    }
}

extension TableNaming {
    /// The naming of the innermost ``rendering(_:in:_:)`` around the caller, if any.
    @TaskLocal static var scope: SchemaNaming?

    /// How a statement rendered for `schema` without a naming of its own spells its names: the
    /// naming of the innermost ``rendering(_:in:_:)`` for that same schema around the caller, else
    /// the model's. A statement for any other schema (`pg_temp`, the catalog's, a round's delta) is
    /// not touched.
    public static func current(for schema: String) -> TableNaming {
        guard let scope, scope.schema == schema else { return .model }
        return scope.tables
    }

    /// Runs `body` with every statement rendered for `schema` (by ``SQL/text(schema:tables:quoting:)``,
    /// ``SQL/parameterized(schema:tables:quoting:)``, ``SQL/naming(schema:tables:quoting:)``, and so by
    /// LibPQ's `Statement(sql, schema:)`, `execute(sql, schema:)` and `pipeline(…, schema:)`) spelling
    /// its names by `naming`, unless the call gives a naming itself: how the step executor and all
    /// it calls (the archive, validation, column order, policies and their SQL) address a shadow
    /// built inside the tenant's schema (``citusShadow``) without each being handed the naming.
    ///
    /// The value is bound to the calling task or thread for the call's duration (a task-local), not
    /// stored anywhere: what runs elsewhere, or after `body` returns, renders as before. With
    /// ``model`` nothing changes, byte for byte. A statement already renamed for the naming
    /// (``SQL/renamed(tables:)``) must not be rendered inside: it would be renamed twice.
    public static func rendering<Result>(_ naming: TableNaming, in schema: String, _ body: () throws -> Result) rethrows -> Result {
        try $scope.withValue(SchemaNaming(schema: schema, tables: naming), operation: body)
    }
}
