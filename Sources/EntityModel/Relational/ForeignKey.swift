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
    public init(name: String, columns: [String], referencedTable: String, referencedColumns: [String], onDelete: ReferentialAction) {
        self.name = name
        self.columns = columns
        self.referencedTable = referencedTable
        self.referencedColumns = referencedColumns
        self.onDelete = onDelete
    }
}
