import EntityModel
import LibPQ
import TypedSQL

extension TenantCatalog {
    /// Pins `tenant` at `version`: fleet runs and `migrateIfNeeded` then leave it where it is, and
    /// only a migration of that one tenant moves it. A history row (`pin`, from the previous pin to
    /// `version`) is written in the same statement. The caller holds the tenant's lock.
    ///
    /// - Returns: whether a tenant of that name exists (and is now pinned).
    @discardableResult
    public func pin(_ tenant: TenantName, at version: String, reason: String?, on connection: Connection) throws -> Bool {
        try changePin(of: tenant, to: version, reason: reason, on: connection)
    }

    /// Clears `tenant`'s pin, writing a history row (`unpin`, from the version it was pinned at).
    /// The caller holds the tenant's lock.
    ///
    /// - Returns: whether the tenant was pinned.
    @discardableResult
    public func unpin(_ tenant: TenantName, on connection: Connection) throws -> Bool {
        try changePin(of: tenant, to: nil, reason: nil, on: connection)
    }

    /// Sets (`version`) or clears (nil) the pin and records it, in one statement; clearing a pin
    /// that is not there changes and records nothing.
    private func changePin(of tenant: TenantName, to version: String?, reason: String?, on connection: Connection) throws -> Bool {
        try connection.execute(pinStatement(tenant, to: version, reason: reason)).rowCount > 0
    }

    /// The statement that pins `tenant` at `version` (nil: unpins it) and records it, to send in a
    /// pipeline; it returns a row when it recorded a change.
    func pinStatement(_ tenant: TenantName, to version: String?, reason: String?) -> Statement {
        let tenants = table("tenants")
        return Statement(
            """
            WITH previous AS (
                SELECT name, family, pinned_version FROM \(tenants) WHERE name = $1
            ), changed AS (
                UPDATE \(tenants) AS t
                SET pinned_version = $2::text, pinned_reason = $3::text, updated_at = pg_catalog.now(),
                    pinned_at = CASE WHEN $2::text IS NULL THEN NULL ELSE pg_catalog.now() END
                FROM previous
                WHERE t.name = previous.name AND ($2::text IS NOT NULL OR previous.pinned_version IS NOT NULL)
                RETURNING t.name, t.family, previous.pinned_version
            )
            INSERT INTO \(table("migration_history"))
                (tenant, family, operation, from_version, to_version, started_at, outcome)
            SELECT name, family, $4::text, pinned_version, $2::text, pg_catalog.now(), 'succeeded' FROM changed
            RETURNING id
            """,
            [tenant.rawValue, version, reason, (version == nil ? HistoryEntry.Operation.unpin : .pin).rawValue]
        )
    }
}
