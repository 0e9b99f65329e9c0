import EntityModel
import LibPQ
import Logging
import MigrationEngine

/// A live schema described as a model version (`tenant-migrate model import --from-schema`): the
/// importer's version and notes, the schema's objects that are not tables, and a check of the result
/// against the schema itself.
///
/// The check renders the imported version the way `tenant adopt` and `verify` do and compares it
/// with the live schema: ``remainingDifferences`` lists what adoption would still refuse, so an
/// empty list means `tenant adopt` takes the schema at this version and `verify` finds it clean
/// (apart from the foreign objects, which `verify` reports too).
public struct SchemaImport: Sendable {
    /// The schema that was read.
    public var schema: String
    /// The imported version.
    public var version: ModelVersion
    /// Everything the model does not carry as it is, or carries in another form, foreign objects
    /// included.
    public var notes: [ImportNote]
    /// How the live schema still differs from the version's rendering.
    public var remainingDifferences: [SchemaDifference]
    /// Objects that are not tables (triggers, views, functions, …): `verify` reports each one.
    public var foreignObjects: [ForeignObject]

    /// Whether adopting the schema at ``version`` succeeds.
    public var isAdoptable: Bool { remainingDifferences.isEmpty }

    /// Reads `schema` on `connection`, in a transaction that changes nothing, and imports it as the
    /// version `versionName`.
    ///
    /// - Throws: `SchemaSnapshotError.schemaNotFound` when there is no such schema; the importer's
    ///   ``ModelLoadError`` when it built an invalid version; the server's errors.
    public static func read(schema: String, versionName: String, on connection: Connection) throws -> SchemaImport {
        try connection.transaction { connection in
            let live = try SchemaSnapshot.read(schema: schema, on: connection)
            let imported = try SchemaImporter(snapshot: live).importVersion(named: versionName)
            let foreign = try ForeignObject.inventory(inSchema: schema, on: connection).excludingSequences(of: imported.version).notDefined(by: imported.version)
            let differences = live.differences(from: try SchemaSnapshot.expected(for: imported.version, on: connection))
            let notes = imported.notes
                + foreign.map { ImportNote(.notExpressed, "\($0.kind) \($0.name)", "the model describes tables only; verify reports it as a foreign object") }
            return SchemaImport(schema: schema, version: imported.version, notes: notes, remainingDifferences: differences, foreignObjects: foreign)
        }
    }

    /// Connects with `connectionString` (a session like the migrator's own: `search_path` pinned to
    /// `pg_catalog`), reads `schema` and imports it as the version `versionName`.
    ///
    /// - Throws: ``TenantMigratorError/databaseUnavailable(_:)`` or
    ///   ``TenantMigratorError/database(_:sqlState:)`` for the server's errors; otherwise as
    ///   ``read(schema:versionName:on:)``.
    public static func read(
        schema: String, versionName: String, connectionString: String, applicationName: String = "TenantMigrator",
        logger: Logger = Logger(label: "TenantMigrator")
    ) async throws -> SchemaImport {
        try await TenantMigratorError.reporting {
            let session = MigratorSession(connectionString: connectionString, applicationName: applicationName, reconnectTimeout: .zero, logger: logger)
            let connection = try await session.connect()
            do {
                let imported = try await connection.withConnection { try read(schema: schema, versionName: versionName, on: $0) }
                await connection.close()
                return imported
            } catch {
                await connection.close()
                throw error
            }
        }
    }
}
