/// A tenant's name, checked against the naming rule: it can never inject SQL.
///
/// The rule: 1 to 48 characters, lowercase ASCII letters, digits and underscores, starting with a
/// letter (`acme`, `acme_eu_2`). The tenant's schema is named `tenant_<name>` unless another
/// schema is adopted for it. Names are also quoted wherever they reach SQL, so the rule is a second
/// line of defence, and it keeps schema names readable and within PostgreSQL's 63-byte limit.
public struct TenantName: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The name.
    public let rawValue: String

    /// The longest name allowed.
    public static let maximumLength = 48

    /// Validates `rawValue` against the naming rule.
    public init(_ rawValue: String) throws {
        guard let first = rawValue.unicodeScalars.first, ("a"..."z").contains(first) else {
            throw TenantMigratorError.invalidTenantName(rawValue, reason: "it must start with a lowercase letter a-z")
        }
        guard rawValue.utf8.count <= Self.maximumLength else {
            throw TenantMigratorError.invalidTenantName(rawValue, reason: "it is longer than \(Self.maximumLength) characters")
        }
        if let bad = rawValue.unicodeScalars.first(where: { !(("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_") }) {
            throw TenantMigratorError.invalidTenantName(rawValue, reason: "it contains \"\(bad)\"; only a-z, 0-9 and _ are allowed")
        }
        self.rawValue = rawValue
    }

    /// The default schema of this tenant: `tenant_<name>`.
    public var defaultSchemaName: String { "tenant_" + rawValue }

    public var description: String { rawValue }

    public static func < (lhs: TenantName, rhs: TenantName) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
