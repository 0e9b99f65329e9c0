/// A change that loses data that existed: a dropped table or column, a narrowed type, links that a
/// smaller relationship cannot hold. Plans list them; rolling back past one needs explicit consent.
public struct DestructiveChange: Sendable, Codable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Codable {
        /// A table and its rows; a column and its values; values that do not fit a narrower type.
        case dropTable, dropColumn, narrowType
        /// Links a smaller relationship cannot hold; rows of entities that no longer exist.
        case dropLinks, deleteRows
        /// Values of rows whose entity no longer has the property (it moved down into a
        /// sub-entity): the model loses them; the column keeps them unseen.
        case hideValues
        /// Values an enum type no longer has: the rows holding them hold NULL or the column's
        /// default instead.
        case removeEnumValues
        /// Declared by a mapping or policy (`loses:`).
        case custom
        /// A sequence the model no longer lists, and its position (the archive keeps the position).
        case dropSequence
    }

    public var kind: Kind
    /// The source table (schema-relative), or "" for a loss declared without one.
    public var table: String
    public var column: String?
    /// Which rows, as an SQL predicate over the source row `source` (nil: all of them), typed
    /// until it runs (the tenant's schema as ``SQL/schema``).
    var rowSet: StepAccount.RowSet?
    /// ``rowSet`` as the account's text, `{schema}` for the tenant's schema: what plans and JSON show.
    public var rows: String? { rowSet?.predicate }
    /// Whether the loss depends on the tenant's data: values a mapping's filter skips, or that a
    /// mapping or policy declares lost in some rows. Such a loss is not in the plan's
    /// ``MigrationPlan/destructiveChanges``, which need consent up front, but in
    /// ``MigrationPlan/dataDependentLosses``: the step counts the rows before it destroys anything
    /// and fails, naming them, unless consent was given.
    public var dependsOnData: Bool = false
    /// A plain sentence.
    public var detail: String

    /// A change over the rows the account's text `rows` selects (`{schema}` for the tenant's schema,
    /// as ``StepAccount/RowSet/init(_:words:)`` reads it).
    public init(kind: Kind, table: String, column: String? = nil, rows: String? = nil, dependsOnData: Bool = false, detail: String) {
        self.init(kind: kind, table: table, column: column, rowSet: rows.map { StepAccount.RowSet($0) }, dependsOnData: dependsOnData, detail: detail)
    }

    /// A change over the rows `rowSet` selects, kept typed (its words are not the change's).
    init(kind: Kind, table: String, column: String? = nil, rowSet: StepAccount.RowSet?, dependsOnData: Bool = false, detail: String) {
        self.kind = kind
        self.table = table
        self.column = column
        self.rowSet = rowSet.map { StepAccount.RowSet($0.sql) }
        self.dependsOnData = dependsOnData
        self.detail = detail
    }

    /// The change as JSON holds it: its rows as their text (``rows``), as plans show them.
    private struct Coded: Codable {
        var kind: Kind, table: String, column: String?, rows: String?, dependsOnData: Bool, detail: String
    }

    public init(from decoder: any Decoder) throws {
        let coded = try Coded(from: decoder)
        self.init(kind: coded.kind, table: coded.table, column: coded.column, rows: coded.rows, dependsOnData: coded.dependsOnData, detail: coded.detail)
    }

    public func encode(to encoder: any Encoder) throws {
        try Coded(kind: kind, table: table, column: column, rows: rows, dependsOnData: dependsOnData, detail: detail).encode(to: encoder)
    }

    public var description: String { detail }

    /// Whether the tenant's archive keeps what it destroys (a table's or column's values, a
    /// sequence's position), so that a way back gives it back: else it is lost for good.
    public var isKeptByArchive: Bool { !table.isEmpty || kind == .dropSequence }
}
