import EntityModel
import LibPQ
import TenantMigrator
import Testing

/// How the import tests read a schema they wrote by hand: imported as version v1, it comes with no
/// note, is adoptable, its YAML has each of `lines`, and that YAML (as the file `file`) loads back
/// as the same model. Returns the import and the model read back.
func cleanImport(
    _ schema: String, lines expected: [String], file: String, on connection: Connection, sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws -> (imported: SchemaImport, reloaded: ModelVersion) {
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
