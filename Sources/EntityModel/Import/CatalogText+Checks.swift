extension CatalogText {
    /// The condition of a check as the model keeps it: as `pg_get_constraintdef` prints it, except
    /// where PostgreSQL would not read that text back to the same constraint. `status IN ('A', 'B')`
    /// on a `varchar` column (Hibernate's check of an enum) prints as
    /// `((status)::text = ANY ((ARRAY['A'::character varying, 'B'::character varying])::text[]))`,
    /// which PostgreSQL reads back as another expression (the casts move into the array); it is
    /// kept as `status IN ('A', 'B')`, which gives the original constraint again.
    static func condition(ofCheck condition: String) -> String {
        let pattern = /\(\(([a-z_][a-z0-9_]*|"(?:[^"]|"")+")\)::text = ANY \(\(ARRAY\[((?:'(?:[^']|'')*'::character varying(?:, )?)+)\]\)::text\[\]\)\)/
        guard let match = condition.wholeMatch(of: pattern) else { return condition }
        let values = match.2.matches(of: /('(?:[^']|'')*')::character varying/).map { String($0.1) }
        return "\(match.1) IN (\(values.joined(separator: ", ")))"
    }
}
