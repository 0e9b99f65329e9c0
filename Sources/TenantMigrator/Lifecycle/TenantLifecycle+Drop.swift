import Foundation
import LibPQ

extension TenantLifecycle {
    /// Drops tenant `name`: its schema with all its data (and the old tables an online migration
    /// kept), and its catalog record. The history is kept, with a row for the drop. Refused
    /// (``OutsideDependents``, 2BP01), with nothing dropped, while something outside the schema
    /// depends on it: the cascade would drop that too.
    ///
    /// - Parameter confirmed: must be true; dropping deletes data (the CLI's `--yes-drop-data`).
    public func drop(_ name: TenantName, confirmed: Bool, on connection: Connection) throws {
        guard confirmed else { throw TenantMigratorError.dropNotConfirmed(name) }
        let started = Date()
        try connection.transaction { connection in
            try catalog.lockTenant(name, on: connection)
            let record = try catalog.requireTenant(name, on: connection, forUpdate: true)
            try OnlineSchemas.dropAll(forTenantSchema: record.schema, on: connection)
            let outside = try OutsideDependents.find(of: record.schema, on: connection)
            guard outside.isEmpty else { throw OutsideDependents(tenant: name, schema: record.schema, objects: outside) }
            try connection.script("DROP SCHEMA IF EXISTS \(id: record.schema) CASCADE")
            try catalog.deregister(name, on: connection)
            try catalog.recordHistory(
                HistoryEntry(tenant: name, family: record.family, operation: .drop, fromVersion: record.version,
                             toVersion: nil, startedAt: started, outcome: .succeeded),
                on: connection
            )
        }
    }
}
