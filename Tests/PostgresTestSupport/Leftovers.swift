import EmbeddedPostgres
import LibPQ

/// What test runs that were killed midway (a CI limit, a Ctrl-C, a crash) left in the shared test
/// cluster: their databases (each test drops its own when it ends, not when its process dies) and
/// the roles their tests made. Left there, they piled up run after run (444 databases and 6,951
/// roles once); the cluster is the tests' own, so the first process to use it removes them all.
enum Leftovers {
    /// Drops every test database and every role other than the cluster's own superuser and
    /// PostgreSQL's predefined roles; best effort (a failure leaves the rest to the next run).
    static func remove(from server: RunningServer) {
        guard let admin = try? Connection(server.connectionString()) else { return }
        let databases = (try? admin.execute(
            "SELECT datname::text FROM pg_catalog.pg_database WHERE datname LIKE 'tm\\_test\\_%'"
        ).map { try $0.decode(String.self, at: 0) }) ?? []
        for database in databases {
            _ = try? admin.execute("DROP DATABASE IF EXISTS \(id: database) WITH (FORCE)")
        }
        let roles = (try? admin.execute(
            "SELECT rolname::text FROM pg_catalog.pg_roles WHERE NOT rolsuper AND rolname NOT LIKE 'pg\\_%'"
        ).map { try $0.decode(String.self, at: 0) }) ?? []
        for role in roles {
            _ = try? admin.execute("DROP OWNED BY \(id: role) CASCADE")
            _ = try? admin.execute("DROP ROLE IF EXISTS \(id: role)")
        }
    }
}
