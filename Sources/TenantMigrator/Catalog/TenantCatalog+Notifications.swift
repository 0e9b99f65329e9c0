import LibPQ

extension TenantCatalog {
    /// The channel on which every change to a tenant's catalog row (its version, its state, its
    /// removal) is announced, with the tenant's name as payload: `tenant_migrator_<schema>`, cut to
    /// PostgreSQL's 63-byte identifier limit. The notification is sent in the transaction that
    /// makes the change, so it is delivered when, and only if, that transaction commits.
    public var notificationChannel: String {
        String(decoding: Array(("tenant_migrator_" + schema).utf8.prefix(63)), as: UTF8.self)
    }

    /// `RETURNING` clause that announces the changed rows on ``notificationChannel`` (whose value
    /// is bound as parameter `$<parameter>`): the write and its announcement cost one statement.
    static func announcingChanges(parameter: Int) -> SQL {
        " RETURNING pg_catalog.pg_notify($\(int: parameter), name)"
    }
}
