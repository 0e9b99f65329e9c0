import LibPQ
import MigrationEngine

/// A Swift policy the round-trip generator registers over any generated entity pair
/// (``FamilyGenerator``): it rewrites one text or integer attribute of each row in place, row by
/// row (upper case, or half), as a mapping's expression would, archiving the value it overwrites
/// through the context. Row-local: it reads and writes its own row only.
struct GeneratedInPlacePolicy: MigrationPolicy {
    /// What the generator registered: the entity and attribute (source version names), whether
    /// the attribute is text (else an `int32` or `int64`), and whether a NULL is filled
    /// (`'none'`, `0`) instead of kept.
    struct Registration: Sendable {
        var name: String
        var entity: String
        var attribute: String
        var type: String
        var fillsNulls: Bool
    }

    let registration: Registration

    var transforms: [String] { [registration.attribute] }

    func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
        let (entity, attribute) = (registration.entity, registration.attribute)
        let new: (any PQEncodable)?
        switch registration.type {
        case "string":
            let old = try source.string(attribute)
            try context.archive(entity: entity, id: source.id, attribute: attribute, value: old)
            new = old.map { $0.uppercased() } ?? (registration.fillsNulls ? "none" : nil)
        case "int32":
            let old = try source.value(Int32?.self, attribute)
            try context.archive(entity: entity, id: source.id, attribute: attribute, value: old)
            new = old.map { $0 / 2 } ?? (registration.fillsNulls ? Int32(0) : nil)
        default:
            let old = try source.value(Int64?.self, attribute)
            try context.archive(entity: entity, id: source.id, attribute: attribute, value: old)
            new = old.map { $0 / 2 } ?? (registration.fillsNulls ? Int64(0) : nil)
        }
        try context.update(entity, id: source.id, [attribute: new])
        context.associate(source: source.id, destination: source.id)
    }
}

extension FamilyGenerator.Family {
    /// The family's generated policies, registered by name.
    var registry: PolicyRegistry {
        var registry = PolicyRegistry()
        for policy in policies {
            registry.register(policy.name) { GeneratedInPlacePolicy(registration: policy) }
        }
        return registry
    }
}
