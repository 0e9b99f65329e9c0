import EntityModel
import LibPQ
import MigrationEngine
import TenantMigrator
import Testing

/// How the import tests read a schema they wrote by hand (`statements`, run first): imported as
/// version v1, it comes with no note, is adoptable, its YAML has each of `lines`, and that YAML (as
/// the file `file`) loads back as the same model. Returns the import and the model read back.
func cleanImport(
    _ schema: String, made statements: [String], lines expected: [String], file: String, on connection: Connection,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws -> (imported: SchemaImport, reloaded: ModelVersion) {
    for statement in statements { try connection.fixtureScript(statement) }
    let imported = try SchemaImport.read(schema: schema, versionName: "v1", on: connection)
    let yaml = imported.version.yamlText()
    #expect(imported.notes.isEmpty, "\(imported.notes.map(\.description))\n\(yaml)", sourceLocation: sourceLocation)
    #expect(imported.isAdoptable, "\(imported.remainingDifferences.map(\.description))\n\(yaml)", sourceLocation: sourceLocation)
    let lines = Set(yaml.split(separator: "\n").map(String.init))
    for line in expected {
        #expect(lines.contains(line), "missing \(line) in\n\(yaml)", sourceLocation: sourceLocation)
    }
    let reloaded = try ModelVersion(name: "v1", yaml: yaml, file: file)
    #expect(reloaded.versionHash == imported.version.versionHash, sourceLocation: sourceLocation)
    return (imported, reloaded)
}

/// The two versions of an imported model's change: runs `statements` (a hand-written schema and
/// its rows), imports `schema` as v1, and makes v2 (as the file `file`) of `edit` applied to v1's YAML.
func importedChange(
    _ statements: [String], schema: String, file: String = "v2", on connection: Connection, v2 edit: (String) -> String
) throws -> (v1: ModelVersion, v2: ModelVersion) {
    for statement in statements { try connection.fixtureScript(statement) }
    let v1 = try SchemaImport.read(schema: schema, versionName: "v1", on: connection).version
    return (v1, try ModelVersion(name: "v2", yaml: edit(v1.yamlText()), file: file))
}

extension AdoptedSchema {
    /// Creates tenant `created` at v1 and expects its catalog to be the adopted schema's, compared
    /// by `shape` (which is handed each schema's name).
    @discardableResult
    func expectNewTenantLikeTheAdopted(
        _ schema: String, shape: (String) throws -> [String], on connection: Connection, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> TenantRecord {
        let created = try lifecycle.create(try tenant("created"), version: "v1", on: connection)
        let createdShape = try shape(created.schema), originalShape = try shape(schema)
        #expect(createdShape == originalShape, "\(createdShape.difference(from: originalShape))", sourceLocation: sourceLocation)
        return created
    }
}

/// The schema `schema` adopted as tenant `adopted` of `family` (at v1), migrated to v2 by a step
/// that must fail: expects the failure to name each of `parts` and the schema's rows to be as
/// they were. (`refusal` is recorded if the step migrates instead.)
func expectFailedStep(
    _ schema: String, family: ModelFamily, naming parts: [String], refusal: String, on connection: Connection,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws {
    let catalog = try AdoptedSchema(schema, family: family, on: connection).catalog
    let before = try connection.userData(of: schema)
    let runner = TenantExecutor(catalog: catalog, planner: MigrationPlanner(family: family))
    do {
        _ = try runner.migrate(try tenant("adopted"), .migrate(to: "v2"), on: connection)
        Issue.record("\(refusal): migrated", sourceLocation: sourceLocation)
    } catch {
        for part in parts {
            #expect("\(error)".contains(part), "\(part) not in \(error)", sourceLocation: sourceLocation)
        }
    }
    #expect(try connection.userData(of: schema) == before, sourceLocation: sourceLocation)
}

/// Migrates tenant `name` (in `schema`) to v2 and back to v1 with `runner`: each way migrates and
/// leaves the tenant verifying clean; `atV2` checks the schema at v2; back at v1, its rows and
/// what `kept` reads of it (catalog shape, sequence positions, …) are as they were.
func expectThereAndBack(
    _ name: String, in schema: String, runner: TenantExecutor, lifecycle: TenantLifecycle, kept: (String) throws -> [[String]],
    on connection: Connection, sourceLocation: Testing.SourceLocation = #_sourceLocation, atV2: (String) throws -> Void
) throws {
    let keptBefore = try kept(schema), dataBefore = try connection.userData(of: schema)
    let up = try runner.migrate(try tenant(name), .migrate(to: "v2"), on: connection)
    #expect(up.outcome == .migrated, "\(name): \(up)", sourceLocation: sourceLocation)
    let verified = try lifecycle.verify(try tenant(name), on: connection)
    #expect(verified.isClean, "\(name) at v2: \(verified.differences.map(\.description)) \(verified.foreignObjects)", sourceLocation: sourceLocation)
    try atV2(schema)
    let down = try runner.migrate(try tenant(name), .rollback(to: "v1"), on: connection)
    #expect(down.outcome == .migrated, "\(name): \(down)", sourceLocation: sourceLocation)
    #expect(try kept(schema) == keptBefore, "\(name)", sourceLocation: sourceLocation)
    #expect(try connection.userData(of: schema) == dataBefore, "\(name)", sourceLocation: sourceLocation)
    #expect(try lifecycle.verify(try tenant(name), on: connection).isClean, "\(name) back at v1", sourceLocation: sourceLocation)
}
