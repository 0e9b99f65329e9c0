/// A foreign key: `CONSTRAINT <table>_<column>_fkey FOREIGN KEY (…) REFERENCES … (id) ON DELETE …`.
public struct ForeignKey: Hashable, Sendable, Codable {
    /// The constraint's name.
    public var name: String
    /// The referencing columns.
    public var columns: [String]
    /// The referenced table (in the same schema).
    public var referencedTable: String
    /// The referenced columns.
    public var referencedColumns: [String]
    /// What happens to referencing rows when the referenced row is deleted.
    public var onDelete: ReferentialAction

    /// Creates a foreign key.
    /// The `ON UPDATE` action, where it is not `NO ACTION`.
    public var onUpdate: ReferentialAction?
    /// Whether the key is `DEFERRABLE INITIALLY DEFERRED` (checked at commit), as Django makes them.
    public var isDeferred: Bool?

    public init(name: String, columns: [String], referencedTable: String, referencedColumns: [String], onDelete: ReferentialAction,
                onUpdate: ReferentialAction? = nil, isDeferred: Bool? = nil) {
        self.onUpdate = onUpdate == ReferentialAction.noAction ? nil : onUpdate
        self.isDeferred = isDeferred == true ? true : nil
        self.name = name
        self.columns = columns
        self.referencedTable = referencedTable
        self.referencedColumns = referencedColumns
        self.onDelete = onDelete
    }
}
