import EntityModel
import LibPQ
import TenantMigrator
import Testing

/// How the import tests begin once they have a model: a new catalog for `family`, and the schema
/// the model was imported from adopted as tenant `adopted` (at the version it matches).
struct AdoptedSchema {
    let catalog = TenantCatalog()
    let lifecycle: TenantLifecycle

    init(_ schema: String, family: ModelFamily, on connection: Connection) throws {
        try catalog.install(on: connection)
        lifecycle = TenantLifecycle(catalog: catalog, family: family)
        try lifecycle.adopt(try tenant("adopted"), schema: schema, on: connection)
    }

    /// Expects tenant `name` to verify clean, naming what differs when it does not.
    func expectClean(_ name: String = "adopted", on connection: Connection, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let report = try lifecycle.verify(try tenant(name), on: connection)
        #expect(report.isClean, "\(name): \(report.differences.map(\.description)) \(report.foreignObjects)", sourceLocation: sourceLocation)
    }

    /// ``init(_:family:on:)`` for a family of one imported version.
    init(_ schema: String, version: ModelVersion, family name: String, on connection: Connection) throws {
        try self.init(schema, family: try ModelFamily(name: name, versions: [version]), on: connection)
    }
}
