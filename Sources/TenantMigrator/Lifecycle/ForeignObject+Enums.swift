import EntityModel

extension Array where Element == ForeignObject {
    /// The objects `version` does not define: without the types its enums are (``EntityModel/EnumType``),
    /// which the schema comparison checks value by value.
    func notDefined(by version: ModelVersion) -> [ForeignObject] {
        let enums = Set(version.enums.map(\.name))
        return filter { !($0.kind == "type" && enums.contains($0.name)) }
    }
}
