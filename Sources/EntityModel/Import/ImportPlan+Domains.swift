extension ImportPlan {
    /// The schema's domain a column of type `catalogType` (as `format_type` prints it) is of, if any.
    func domain(_ catalogType: String) -> DomainSnapshot? {
        snapshot.domains.first { $0.name == catalogType }
    }

    /// How a note names the type of a column of a domain (the model carries its base type):
    /// `, the domain email over character varying(255) with CHECK (…), which the model does not carry,`.
    func domainText(_ domain: DomainSnapshot) -> String {
        let constraints = domain.constraintsText
        return ", the domain \(domain.name) over \(domain.baseType)\(constraints.isEmpty ? "" : " with \(constraints)"), which the model does not carry,"
    }
}
