extension ModelVersion {
    /// Reads and validates a version file's text.
    ///
    /// - Parameters:
    ///   - name: The version's name, e.g. `v2`.
    ///   - yaml: The text of the version file.
    ///   - file: The file named in diagnostics, e.g. `Recipes/v2.yaml`.
    /// - Throws: ``ModelLoadError`` with every mistake found, each with its line.
    public init(name: String, yaml: String, file: String) throws(ModelLoadError) {
        let (entities, enums, diagnostics) = Self.decode(yaml: yaml, file: file)
        guard diagnostics.isEmpty else { throw ModelLoadError(diagnostics: diagnostics) }
        self.init(validated: entities, name: name, enums: enums)
    }

    /// Decodes and validates `yaml`; returns the entities and every mistake found.
    static func decode(yaml: String, file: String) -> (entities: [Entity], enums: [EnumType], diagnostics: [ModelDiagnostic]) {
        var decoder = VersionFileDecoder(file: file)
        let entities = decoder.decode(yaml: yaml)
        let diagnostics = decoder.diagnostics + ModelValidator(entities: entities, file: file).validate()
            + EnumValidator(enums: decoder.enums, entities: entities, file: file).validate()
        return (entities, decoder.enums, diagnostics)
    }
}
