import EntityModel

extension PolicyContext {
    /// `"schema"."table"` of a **source** entity as named while the mappings run: renamed
    /// already, not yet dropped (a table the step drops can still be read).
    public func sourceTable(of entity: String) throws -> String {
        guard let compiler, source.entity(named: entity) != nil, let table = compiler.sourceTable(of: entity) else {
            throw PolicyUsageError("version \(source.name) has no entity \(entity)")
        }
        return connection.qualified(schema, table)
    }

    /// The join table of a source many-to-many (or one-directional to-many) relationship, while
    /// the mappings run: its qualified name, the column of `entity`'s side and the other side's.
    public func sourceJoinTable(of entity: String, _ relationship: String) throws -> (table: String, thisSide: String, otherSide: String) {
        guard let compiler, let join = compiler.sourceJoinTable(of: entity, relationship) else {
            throw PolicyUsageError("\(entity).\(relationship) has no join table in \(source.name)")
        }
        return (connection.qualified(schema, join.name), connection.quoteIdentifier(join.this), connection.quoteIdentifier(join.other))
    }
}
