extension ImportPlan {
    /// The schema's enum types, as the model's.
    var enumTypes: [EnumType] {
        snapshot.enums.map { EnumType(name: $0.name, values: $0.values) }
    }

    /// The model type of a column of type `catalogType` (as `format_type` prints it): an enum of the
    /// schema's own (`order_status`, or `"OrderStatus"` quoted) is `enum(name)`; any other type is read by
    /// ``CatalogText/attributeType(for:)``.
    func attributeType(for catalogType: String) -> (type: AttributeType, columnType: SQLType?, isExact: Bool) {
        var name = catalogType
        if name.count > 2, name.hasPrefix("\""), name.hasSuffix("\"") {
            name = String(name.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
        }
        if snapshot.enums.contains(where: { $0.name == name }) { return (.string, .enumeration(name), true) }
        return CatalogText.attributeType(for: catalogType)
    }
}
