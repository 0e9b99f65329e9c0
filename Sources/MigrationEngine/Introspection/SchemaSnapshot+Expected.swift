import EntityModel
import LibPQ

extension SchemaSnapshot {
    /// Renders `version` into a scratch schema inside a savepoint that is always rolled back, reads it back, and returns it.
    /// This is what the live schema must equal; it lets PostgreSQL itself normalize types and defaults.
    ///
    /// The scratch schema is `_tm_expected_<16 random hex digits>`. The work runs in
    /// `connection.savepoint`, so inside a transaction opened by `Connection.transaction` it is a
    /// savepoint rolled back afterwards, and outside one it is a transaction of its own, rolled back.
    /// Nothing remains either way, also when rendering or reading fails. Nothing is cached: each call
    /// runs the version's DDL again (about a tenth of a second for ten tables with their constraints
    /// and indexes; reading them back is a few milliseconds).
    ///
    /// A transaction opened with a raw `BEGIN` (not through `Connection.transaction`) is invisible
    /// to `Connection`, which would then issue a `ROLLBACK` of its own; open transactions through
    /// `Connection.transaction` before calling this.
    public static func expected(for version: ModelVersion, on connection: Connection) throws -> SchemaSnapshot {
        let scratch = "_tm_expected_" + randomHex()
        do {
            try connection.savepoint { connection in
                try ExpressionTrust(version: version).check(on: connection)
                try connection.pipeline(try scratchSchemaStatements(scratch, for: version, on: connection))
                throw Discard(snapshot: try read(schema: scratch, on: connection))
            }
        } catch let discard as Discard {
            return discard.snapshot
        }
        preconditionFailure("the scratch schema's savepoint must end by rolling back")
    }

    /// The statements that build `version` in a new schema `scratch`, local to the coordinator on
    /// Citus, one statement each so that they can run as one pipeline.
    public static func scratchSchemaStatements(_ scratch: String, for version: ModelVersion, on connection: Connection) throws -> [Statement] {
        try connection.keepingNewSchemasLocal()
            + [Statement("CREATE SCHEMA \(id: scratch)")]
            + version.relationalSchema().creationStatements.map { Statement($0, schema: scratch) }
    }

    /// Thrown to roll the scratch schema back once it has been read, carrying what was read.
    private struct Discard: Error {
        let snapshot: SchemaSnapshot
    }

    private static func randomHex() -> String {
        let digits = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
