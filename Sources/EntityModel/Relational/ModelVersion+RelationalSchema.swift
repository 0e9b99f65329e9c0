extension ModelVersion {
    /// The physical shape of this version in PostgreSQL: one table per root entity (sub-entities
    /// share it, told apart by the `entity` discriminator), plus a join table per many-to-many or
    /// inverse-less to-many relationship. Deterministic: the same model always gives the same schema.
    public func relationalSchema() -> RelationalSchema {
        RelationalMapper(graph: graph).schema()
    }
}
