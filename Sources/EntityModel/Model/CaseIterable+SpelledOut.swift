extension CaseIterable where Self: RawRepresentable, RawValue == String {
    /// Every case as a version file spells it, for messages: `primaryKey, uniqueIndex`.
    static var spelledOut: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
