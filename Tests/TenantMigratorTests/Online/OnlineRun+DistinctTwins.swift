import LibPQ

extension OnlineRunDistinctTests {
    /// Installs the catalog and creates the Recipes tenants `online` (to migrate online) and `twin`
    /// (to migrate offline) at v2, each filled by `fill` with its name; returns the connection.
    func twinsAtV2(_ conninfo: String, filling fill: (_ name: String, _ connection: Connection) throws -> Void) throws -> Connection {
        let (connection, lifecycle) = try installedLifecycle(conninfo)
        for name in ["online", "twin"] {
            try lifecycle.create(try tenant(name), version: "v2", on: connection)
            try fill(name, connection)
        }
        return connection
    }
}
