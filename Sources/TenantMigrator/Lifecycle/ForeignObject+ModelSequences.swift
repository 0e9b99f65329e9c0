import EntityModel

extension Array where Element == ForeignObject {
    /// These objects without the sequences `version` declares (`sequences:`): those belong to the
    /// model, and the schema comparison checks their settings.
    func excludingSequences(of version: ModelVersion) -> [ForeignObject] {
        let declared = Set(version.sequences.map(\.name))
        return filter { $0.kind != "sequence" || !declared.contains($0.name) }
    }
}
