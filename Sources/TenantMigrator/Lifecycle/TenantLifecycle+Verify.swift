import EntityModel
import LibPQ
import MigrationEngine

/// What `verify` found for one tenant.
public struct VerificationReport: Sendable, Codable {
    public var tenant: TenantName
    public var schema: String
    public var version: String
    /// Each way the live schema differs from the rendering of the recorded version.
    public var differences: [SchemaDifference]
    /// Set when the version's model file changed since the tenant reached it.
    public var hashMismatch: String?
    /// Objects in the tenant's schema that the model does not define (triggers, functions, views,
    /// sequences, policies, …), and rights to create them; see ``ForeignObject``.
    public var foreignObjects: [ForeignObject] = []
    /// With `strict`: tables whose columns are in another order than the model's (after a
    /// rollback or an added attribute, PostgreSQL appends columns); nil without `strict`.
    public var columnOrder: [ColumnOrderDifference]?

    /// No drift, no hash mismatch, no foreign objects (and, when checked, columns in model order).
    public var isClean: Bool { differences.isEmpty && hashMismatch == nil && foreignObjects.isEmpty && (columnOrder ?? []).isEmpty }
}

extension TenantLifecycle {
    /// Compares the tenant's live schema (read from pg_catalog) with the rendering of its recorded
    /// version, and reports every difference; with `strict`, also columns out of model order.
    public func verify(_ name: TenantName, on connection: Connection, strict: Bool = false) throws -> VerificationReport {
        let record = try catalog.requireTenant(name, on: connection)
        try requireFamily(record)
        let version = try version(named: record.version)
        let expected = try SchemaSnapshot.expected(for: version, on: connection)
        let live = try SchemaSnapshot.read(schema: record.schema, on: connection)
        var report = VerificationReport(
            tenant: name, schema: record.schema, version: record.version,
            differences: live.differences(from: expected)
        )
        report.foreignObjects = try ForeignObject.inventory(inSchema: record.schema, on: connection).excludingSequences(of: version).notDefined(by: version)
            .notListed(by: version, on: connection)
        // A check, default, index or column type of the tenant's tables that uses an object no trusted role controls.
        // …and a sequence or enum type of the model that an untrusted role owns.
        let untrusted = try ExpressionTrust.existing(inSchema: record.schema, on: connection)
            + ExpressionTrust.modelObjects(of: version, inSchema: record.schema, on: connection)
        report.foreignObjects += untrusted.map {
            ForeignObject(kind: "untrusted dependency", name: "\($0.place) uses \($0.object)", owner: $0.owner)
        }
        if strict { report.columnOrder = try SchemaSnapshot.columnOrderDifferences(inSchema: record.schema, from: version, on: connection) }
        if record.versionHash != version.versionHash {
            report.hashMismatch = "the model file of \(version.name) changed since the tenant reached it "
                + "(recorded hash \(record.versionHash.prefix(12)), now \(version.versionHash.prefix(12))); "
                + "released versions must not be edited"
        }
        return report
    }
}
