import LibPQ

/// Tables that inherit from a tenant's tables (`CREATE TABLE … INHERITS`, or `ALTER TABLE …
/// INHERIT`, which the owner of the tenant's table may do from any schema of its own). The model
/// defines no inheritance, and the migration's statements on a parent read, update and delete its
/// children's rows as well, firing their triggers, rules and checks with the migrator's rights, and
/// archive rows that are not the tenant's. A tenant with one is refused before anything is written.
struct InheritingTables: Error, CustomStringConvertible {
    /// One table that inherits from a table of the tenant.
    struct Child: Equatable {
        /// The inheriting table, qualified and quoted by the server.
        let table: String
        /// Its owner.
        let owner: String
        /// The tenant's table it inherits from, qualified and quoted by the server.
        let parent: String
    }

    /// The tenant refused.
    let tenant: TenantName
    let children: [Child]

    /// `42501`, insufficient privilege.
    var sqlState: SQLState { "42501" }

    var description: String {
        "tenant \(tenant): " + children.map { "table \($0.table), owned by \($0.owner), inherits from the tenant's table \($0.parent)" }.joined(separator: "; ")
            + ". The model defines no inheritance, and the migration's statements on a parent would read and write its children's rows "
            + "and run their triggers with the migrator's rights, so the migrator refuses the tenant (SQLSTATE \(sqlState)); nothing was changed. "
            + "Detach it (ALTER TABLE … NO INHERIT …) and see docs/Security.md"
    }
}
