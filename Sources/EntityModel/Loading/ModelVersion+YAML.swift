extension ModelVersion {
    /// Reads and validates a version file's text.
    ///
    /// - Parameters:
    ///   - name: The version's name, e.g. `v2`.
    ///   - yaml: The text of the version file.
    ///   - file: The file named in diagnostics, e.g. `Recipes/v2.yaml`.
    /// - Throws: ``ModelLoadError`` with every mistake found, each with its line.
    public init(name: String, yaml: String, file: String) throws(ModelLoadError) {
        let (entities, sequences, enums, foreignObjects, diagnostics) = Self.decode(yaml: yaml, file: file)
        guard diagnostics.isEmpty else { throw ModelLoadError(diagnostics: diagnostics) }
        self.init(validated: entities, sequences: sequences, name: name, enums: enums, foreignObjects: foreignObjects)
    }

    /// Decodes and validates `yaml`; returns the entities, sequences, enum types, foreign objects
    /// and every mistake found.
    static func decode(yaml: String, file: String)
        -> (entities: [Entity], sequences: [ModelSequence], enums: [EnumType], foreignObjects: [String], diagnostics: [ModelDiagnostic]) {
        var decoder = VersionFileDecoder(file: file)
        let entities = decoder.decode(yaml: yaml)
        let diagnostics = decoder.diagnostics + ModelValidator(entities: entities, file: file).validate()
            + ModelValidator.validate(sequences: decoder.sequences, entities: entities, file: file)
            + EnumValidator(enums: decoder.enums, entities: entities, file: file).validate()
        return (entities, decoder.sequences, decoder.enums, decoder.foreignObjects, diagnostics)
    }
}
