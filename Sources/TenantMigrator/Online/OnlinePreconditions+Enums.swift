import EntityModel

extension OnlinePreconditions {
    /// Why a model with enum types of its own (`enums:`) does not migrate online: the shadow's
    /// tables name the types in the shadow's schema, where the model's DDL would make them anew,
    /// and the swap would leave the tenant's columns of the shadow's types.
    var enumRefusal: String? {
        let names = Set(plan.source.enums.map(\.name) + plan.destination.enums.map(\.name)).sorted()
        guard !names.isEmpty else { return nil }
        return "the model has enum types of its own (\(names.joined(separator: ", "))), which the shadow's tables would need in its schema "
            + "and the swap would leave behind; migrate it offline"
    }
}
