/// A PostgreSQL enum type of the model (`enums:` in a version file): a named, ordered list of
/// values, created in the tenant's schema as `CREATE TYPE … AS ENUM`. An attribute holds one of
/// them with `type: enum(name)`.
public struct EnumType: Hashable, Sendable, Codable {
    /// The type's name in the tenant's schema, as written (`order_status`).
    public var name: String
    /// The values, in the order PostgreSQL sorts them.
    public var values: [String]
    /// Values renamed since the previous version: new name → old name (`renamed: {settled: paid}`).
    /// Not part of the stored shape; inference renames the value in the catalog (`RENAME VALUE`).
    public var renamedValues: [String: String]

    /// Creates an enum type.
    public init(name: String, values: [String], renamedValues: [String: String] = [:]) {
        self.name = name
        self.values = values
        self.renamedValues = renamedValues
    }

    /// The column type of an attribute that holds this enum's values.
    public var sqlType: SQLType { .enumeration(name) }
}

extension SQLType {
    /// The column type of the model's enum `name`: written `enum(name)`, created in the tenant's schema.
    public static func enumeration(_ name: String) -> SQLType { SQLType(rawValue: "enum(\(name))") }

    /// The name of the model's enum this type is, or nil for any other type.
    public var enumName: String? {
        guard rawValue.hasPrefix("enum("), rawValue.hasSuffix(")"), rawValue.count > 6 else { return nil }
        return String(rawValue.dropFirst(5).dropLast())
    }
}
