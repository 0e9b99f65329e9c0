import Foundation
import LibPQ
import TypedSQL

/// The durable state of an online run: one row in its private schema (`_tm_online_state`), written
/// at every phase, so that the next run of the tenant (or an operator) sees where a crashed one
/// stopped. A run never resumes from it: the change log has a gap once its runner is gone, so
/// the next run removes everything and starts over.
enum OnlineState {
    static let table = "_tm_online_state"

    static func create(for run: TenantRun, record: TenantRecord, progress: OnlineProgress, in schemas: OnlineSchemas, on connection: Connection) throws {
        let table: SQL = "\(schema: schemas.work, table: Self.table)"
        try connection.execute("""
            CREATE TABLE \(table) (tenant text NOT NULL, from_version text NOT NULL, to_version text NOT NULL, mode text NOT NULL,
                phase text NOT NULL, backend_pid int4 NOT NULL, rows_copied int8 NOT NULL DEFAULT 0, changes int8 NOT NULL DEFAULT 0,
                rounds int4 NOT NULL DEFAULT 0, started_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
                updated_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp())
            """ as SQL)
        try connection.execute(
            "INSERT INTO \(table) (tenant, from_version, to_version, mode, phase, backend_pid) VALUES (\(bind: run.tenant.rawValue), "
                + "\(bind: record.version), \(bind: run.destination.name), \(bind: progress.mode), \(bind: progress.phase.rawValue), pg_catalog.pg_backend_pid())"
        )
    }

    static func update(_ progress: OnlineProgress, in schemas: OnlineSchemas, on connection: Connection) throws {
        try connection.execute(
            "UPDATE \(schema: schemas.work, table: table) SET phase = $1, rows_copied = $2, changes = $3, rounds = $4, "
                + "updated_at = pg_catalog.clock_timestamp()",
            [progress.phase.rawValue, Int64(progress.rowsCopied), Int64(progress.changesCaughtUp), Int32(progress.rounds)]
        )
    }

    /// What an earlier run recorded, as a sentence, or nil when there is none.
    static func read(in schemas: OnlineSchemas, on connection: Connection) throws -> String? {
        guard try OnlineSchemas.existsAsOwn(schemas.work, on: connection) else { return nil }
        let exists = try connection.execute("SELECT pg_catalog.to_regclass(\(bind: QualifiedTable(schema: schemas.work, name: table).text)) IS NOT NULL")
            .first?.decode(Bool.self, at: 0) ?? false
        guard exists else { return nil }
        guard let row = try connection.execute(
            "SELECT from_version, to_version, phase, backend_pid, rows_copied, updated_at::text FROM \(schema: schemas.work, table: table)"
        ).first else { return nil }
        return "\(try row.decode(String.self, at: 0)) → \(try row.decode(String.self, at: 1)), backend \(try row.decode(Int32.self, at: 3)), "
            + "stopped in phase \(try row.decode(String.self, at: 2)) after \(try row.decode(Int64.self, at: 4)) rows copied, at \(try row.decode(String.self, at: 5))"
    }
}
