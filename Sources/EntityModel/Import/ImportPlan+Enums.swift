extension ImportPlan {
    /// The schema's enum types, as the model's.
    var enumTypes: [EnumType] {
        snapshot.enums.map { EnumType(name: $0.name, values: $0.values) }
    }

    /// The model type of a column of type `catalogType` (as `format_type` prints it): an enum of the
    /// schema's own (`order_status`, or `"OrderStatus"` quoted) is `enum(name)`; any other type is read by
    /// ``CatalogText/attributeType(for:)``.
    func attributeType(for catalogType: String) -> (type: AttributeType, columnType: SQLType?, isExact: Bool) {
        if let domain = domain(catalogType) {
            // Its base type, which the import names with the domain (ImportPlan+Domains.swift).
            let base = attributeType(for: domain.baseType)
            return (base.type, base.columnType, false)
        }
        var name = catalogType
        if name.count > 2, name.hasPrefix("\""), name.hasSuffix("\"") {
            name = String(name.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
        }
        if snapshot.enums.contains(where: { $0.name == name }) { return (.string, .enumeration(name), true) }
        if enumOfArray(catalogType) != nil {
            // Its values as their text (an array of enum values casts to text[] and back).
            let text = CatalogText.attributeType(for: "text[]")
            return (text.type, text.columnType, false)
        }
        return CatalogText.attributeType(for: catalogType)
    }

    /// The schema's enum type whose array `catalogType` is (`order_status[]`), if it is one.
    func enumOfArray(_ catalogType: String) -> String? {
        guard catalogType.hasSuffix("[]") else { return nil }
        var name = String(catalogType.dropLast(2))
        if name.count > 2, name.hasPrefix("\""), name.hasSuffix("\"") {
            name = String(name.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
        }
        return snapshot.enums.contains { $0.name == name } ? name : nil
    }
}
