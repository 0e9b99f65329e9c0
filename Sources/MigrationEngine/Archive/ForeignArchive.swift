import LibPQ

/// A relation named like a tenant's archive (`_tm_archive`) that is not the migrator's own table:
/// a view, a materialized view, a foreign table, or a table another role owns (but a superuser:
/// another migrator role's archive is used). A role that may
/// create objects in the tenant's schema can plant one, and reading or writing it would run that
/// role's code (a view's functions, a trigger, a rule, a row security policy) with the migrator's
/// rights, so the migrator refuses to touch it.
public struct ForeignArchive: Error, Sendable, CustomStringConvertible {
    /// The relation, qualified.
    public let relation: String
    /// What it is (`view`, `table`, …).
    public let kind: String
    /// The role that owns it.
    public let owner: String

    public var description: String {
        "\(relation) is a \(kind) owned by \(owner), not the migrator's own archive table: the migrator neither reads, "
            + "writes nor drops it. Someone who can create objects in the tenant's schema made it; drop it (as its owner or a "
            + "superuser) and check what else they made (`tenant-migrate verify`)"
    }

    /// Throws when the row's columns from `index` on (``TenantArchive/ownershipSQL(_:)``) describe
    /// anything but the migrator's own table.
    package static func check(_ row: Row, from index: Int) throws {
        guard try !row.decode(Bool.self, at: index + 3) else { return }
        throw ForeignArchive(
            relation: try row.decode(String.self, at: index + 2), kind: kindName(try row.decode(String.self, at: index)),
            owner: try row.decode(String.self, at: index + 1)
        )
    }

    /// `relkind`, in words.
    package static func kindName(_ relkind: String) -> String {
        switch relkind {
        case "r": "table"
        case "v": "view"
        case "m": "materialized view"
        case "f": "foreign table"
        case "p": "partitioned table"
        case "S": "sequence"
        case "i", "I": "index"
        case "c": "composite type"
        default: "relation of kind \(relkind)"
        }
    }
}
