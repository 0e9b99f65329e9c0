import Foundation
import LibPQ
import TypedSQL

/// The liveness of an online run whose change capture fires on the tenant's worker (Citus): a
/// lease row in a table of the tenant's own schema (colocated with its tables), which the capture
/// reads there. ``OnlineLease`` names the runner's session in the catalog, which lives on the
/// coordinator only: read on the worker it fails the app's own writes (42P01).
///
/// The row names its holder (the run's lease value) and an expiry. The capture logs while
/// `expires_at` is ahead of the clock; a ``Renewer`` on a thread and connection of its own moves it
/// on every third of ``duration``, so a long statement of the run never lets it lapse, and a run
/// that died stops renewing it: after ``duration`` the capture logs nothing (a crashed run costs
/// the app one function call per written row until the next run or `online cleanup`). A renewal
/// that finds the lease lapsed renews nothing and says so: the log then has a gap, and the run
/// must start over.
///
/// The table is the migrator's: made by it in a schema no other role may create in (an online
/// precondition), with every right another role got from default privileges revoked at once, so
/// the app role can neither write nor empty it. Renewals send `now()` (Citus refuses
/// `clock_timestamp()` in an UPDATE of a distributed table, 0A000); the capture compares with
/// `clock_timestamp()`.
struct InSchemaLease: Sendable {
    /// The tenant's schema.
    let schema: String
    /// How the run's own objects are named there.
    let naming: TableNaming
    /// Who holds it: the run's ``OnlineLease/value``.
    let holder: String
    /// How long a renewal keeps it.
    let duration: Duration

    static let table = "_tm_online_lease"

    var tableSQL: SQL { "\(schema: schema, table: naming.name(Self.table))" }

    private var interval: SQL { "\(literal: "\(Int(duration.inMilliseconds)) milliseconds")::pg_catalog.interval" }

    /// Creates the table with the lease, fresh for ``duration``, in the caller's transaction.
    func create(on connection: Connection) throws {
        try connection.execute("CREATE TABLE \(tableSQL) (holder text NOT NULL, expires_at timestamptz NOT NULL)")
        let grantees = try connection.execute("""
            SELECT DISTINCT CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END
            FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a
            WHERE c.oid = pg_catalog.to_regclass(\(bind: tableSQL.text(schema: schema))) AND a.grantee <> c.relowner
            """).map { try $0.decode(String.self, at: 0) }
        for grantee in grantees { try connection.execute("REVOKE ALL ON \(tableSQL) FROM \(quotedByServer: grantee)") }
        try connection.execute("INSERT INTO \(tableSQL) (holder, expires_at) VALUES (\(bind: holder), pg_catalog.now() + \(interval))")
    }

    /// SQL true while the lease is fresh: what the capture asks, on the worker, before it logs.
    var heldSQL: SQL {
        "EXISTS (SELECT FROM \(tableSQL) AS lease WHERE lease.holder = \(literal: holder) AND lease.expires_at > pg_catalog.clock_timestamp())"
    }

    /// Moves the expiry on by ``duration``, unless the lease had lapsed.
    ///
    /// - Returns: false when it had (nothing is renewed then).
    func renew(on connection: Connection) throws -> Bool {
        try connection.execute("""
            UPDATE \(tableSQL) SET expires_at = pg_catalog.now() + \(interval) WHERE holder = \(bind: holder) AND expires_at > pg_catalog.now()
            """).affectedRows == 1
    }

    /// Renews a lease every third of its duration from a thread and connection of its own, until
    /// stopped; notes a lapse (or a renewal that failed), after which it stops renewing.
    final class Renewer: @unchecked Sendable {
        private let lease: InSchemaLease
        private let condition = NSCondition()
        private var stopped = false
        private var lapse: String?
        private var finished = false

        /// Starts renewing `lease` on a new connection to `connectionString`.
        convenience init(_ lease: InSchemaLease, connectionString: String) throws {
            // Opened here, so that a renewer that cannot connect fails the run at once.
            try self.init(lease, connection: Connection(connectionString))
        }

        /// Starts renewing `lease` on `connection`, which the renewer's thread alone uses from now on.
        init(_ lease: InSchemaLease, connection: Connection) {
            self.lease = lease
            nonisolated(unsafe) let connection = connection
            let thread = Thread { [self] in run(on: connection) }
            thread.name = "tenant-migrator lease renewer"
            thread.start()
        }

        /// Why the lease lapsed, if it did: the capture may have missed changes since.
        var lapsed: String? {
            condition.lock()
            defer { condition.unlock() }
            return lapse
        }

        /// Stops renewing (the lease then lapses after its duration), and waits for the thread.
        func stop() {
            condition.lock()
            stopped = true
            condition.broadcast()
            while !finished { condition.wait() }
            condition.unlock()
        }

        private func run(on connection: Connection) {
            let period = Double(lease.duration.inMilliseconds) / 3000
            condition.lock()
            while !stopped, lapse == nil {
                _ = condition.wait(until: Date(timeIntervalSinceNow: period))
                if stopped { break }
                condition.unlock()
                let outcome: String?
                do {
                    outcome = try lease.renew(on: connection) ? nil : "the lease had expired before it was renewed"
                } catch {
                    outcome = "the lease could not be renewed: \(error)"
                }
                condition.lock()
                lapse = lapse ?? outcome
            }
            finished = true
            condition.broadcast()
            condition.unlock()
        }
    }
}
