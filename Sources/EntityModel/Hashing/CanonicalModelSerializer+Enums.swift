extension CanonicalModelSerializer {
    /// The lines of the enum types, one a type with its values in order, after the entities' text;
    /// empty for a version without enums, so that the hash of every model without them stays as it was.
    /// Renamings are left out: they are not part of the stored shape.
    static func enumText(_ enums: [EnumType]) -> String {
        enums.map { "enum " + CanonicalText.quoted($0.name) + " values " + $0.values.map(CanonicalText.quoted).joined(separator: ",") + "\n" }
            .joined()
    }
}
