import EntityModel

extension OnlinePreconditions {
    /// Why a model with sequences of its own (`sequences:`) does not migrate online: the shadow's
    /// defaults would draw from new sequences in the shadow's schema, beginning again at their
    /// start, while the tenant's sequences, with their current values, stay where they are.
    var sequenceRefusal: String? {
        let names = Set(plan.source.sequences.map(\.name) + plan.destination.sequences.map(\.name)).sorted()
        guard !names.isEmpty else { return nil }
        return "the model has sequences of its own (\(names.joined(separator: ", "))), which the shadow would make anew from their start "
            + "while the tenant's keep their current values; migrate it offline"
    }
}
