import EntityModel

/// A property the correspondence matches across versions, by its renamingIdentifier or else by
/// its name: an attribute or a relationship.
protocol RenamableProperty {
    var name: String { get }
    var renamingIdentifier: String? { get }
}

extension Attribute: RenamableProperty {}
extension Relationship: RenamableProperty {}

extension Correspondence {
    /// One kind of property (attributes or relationships): where its matches go, and how an
    /// entity lists it. The rules of matching are the same for both kinds.
    struct PropertyKind<Element: RenamableProperty> {
        /// The matches of this kind, older → newer.
        let matches: WritableKeyPath<Correspondence, [Property: Property]>
        /// The properties an entity declares itself.
        let declared: KeyPath<Entity, [Element]>
        /// An entity's properties in a version, inherited ones first, each with the entity that declares it.
        let all: (ModelVersion, String) -> [(declaredBy: String, element: Element)]
    }

    static var attributeKind: PropertyKind<Attribute> {
        PropertyKind(matches: \.attributes, declared: \.attributes) { version, entity in
            version.allAttributes(of: entity).map { ($0.declaredBy, $0.attribute) }
        }
    }

    static var relationshipKind: PropertyKind<Relationship> {
        PropertyKind(matches: \.relationships, declared: \.relationships) { version, entity in
            version.allRelationships(of: entity).map { ($0.declaredBy, $0.relationship) }
        }
    }

    /// Among the older `candidates`, the one the newer `property` is: the one its
    /// renamingIdentifier names, or else the one of its name.
    static func older<Element: RenamableProperty>(
        of property: Element, among candidates: [(declaredBy: String, element: Element)]
    ) -> (declaredBy: String, element: Element)? {
        candidates.first(where: { $0.element.name == property.renamingIdentifier }) ?? candidates.first(where: { $0.element.name == property.name })
    }

    /// Among the newer `candidates`, the one the older `property` became: the one whose
    /// renamingIdentifier names it, or else the one of its name.
    static func newer<Element: RenamableProperty>(
        of property: Element, among candidates: [(declaredBy: String, element: Element)]
    ) -> (declaredBy: String, element: Element)? {
        candidates.first(where: { $0.element.renamingIdentifier == property.name }) ?? candidates.first(where: { $0.element.name == property.name })
    }

    /// Matches every property of `kind` that `newEntity` has in `newer` to its older self in
    /// `oldEntity` of `older`.
    mutating func matchProperties<Element>(
        _ kind: PropertyKind<Element>, of newEntity: String, in newer: ModelVersion, to oldEntity: String, in older: ModelVersion
    ) {
        let oldProperties = kind.all(older, oldEntity)
        for (declaredBy, property) in kind.all(newer, newEntity) {
            if let match = Self.older(of: property, among: oldProperties) {
                self[keyPath: kind.matches][Property(entity: match.declaredBy, name: match.element.name)] = Property(entity: declaredBy, name: property.name)
            }
        }
    }
}
