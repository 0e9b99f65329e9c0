import LibPQ

/// Tables that inherit from a tenant's tables (`CREATE TABLE … INHERITS`, or `ALTER TABLE …
/// INHERIT`, which the owner of the tenant's table may do from any schema of its own), and tables a
/// tenant's table inherits from (`ALTER TABLE … INHERIT`, `ATTACH PARTITION`, which the owner of the
/// tenant's table may do with a table of its own). The model defines no inheritance. The
/// migration's statements on a parent read, update and delete its children's rows as well, firing
/// their triggers, rules and checks with the migrator's rights, and archive rows that are not the
/// tenant's; every row the migration writes in a partition is checked against the partition's
/// bound, which evaluates the parent's partition key (an expression may call its owner's function)
/// with the migrator's rights. A tenant with either is refused before anything is written.
struct InheritingTables: Error, CustomStringConvertible {
    /// One inheritance between a table of the tenant and a table that is not one.
    struct Child: Equatable {
        /// The inheriting table, qualified and quoted by the server.
        let table: String
        /// The owner of the table that is not the tenant's (the child's, or the parent's).
        let owner: String
        /// The table it inherits from, qualified and quoted by the server.
        let parent: String
        /// Whether the inheriting table is the tenant's (it has a parent, or is a partition),
        /// rather than the parent.
        var tenantsIsChild = false
    }

    /// The tenant refused.
    let tenant: TenantName
    let children: [Child]

    /// `42501`, insufficient privilege.
    var sqlState: SQLState { "42501" }

    var description: String {
        "tenant \(tenant): " + children.map {
            $0.tenantsIsChild
                ? "the tenant's table \($0.table) inherits from (or is a partition of) table \($0.parent), owned by \($0.owner)"
                : "table \($0.table), owned by \($0.owner), inherits from the tenant's table \($0.parent)"
        }.joined(separator: "; ")
            + ". The model defines no inheritance, and the migration's statements would read and write the children's rows, "
            + "run their triggers and check a partition's bound with the migrator's rights, so the migrator refuses the tenant (SQLSTATE \(sqlState)); "
            + "nothing was changed. Detach it (ALTER TABLE … NO INHERIT …, DETACH PARTITION …) and see docs/Security.md"
    }
}
