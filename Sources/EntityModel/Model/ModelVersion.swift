/// One version of an entity model: its entities, validated, with their tables resolved and hashes
/// computed (Core Data's `NSManagedObjectModel`).
///
/// Create one with ``init(name:entities:file:)`` or ``init(name:yaml:file:)``, or load a whole
/// family with ``ModelFamily/load(from:)``. A `ModelVersion` always satisfies every rule in
/// `docs/ModelFormat.md`; an invalid model cannot be constructed.
public struct ModelVersion: Hashable, Sendable {
    /// The version's name, e.g. `v2`.
    public let name: String
    /// The entities, sorted by name, with ``Entity/tableName`` and ``Entity/versionHash`` resolved.
    public let entities: [Entity]
    /// The hex SHA-256 of the version's stored shape; see `docs/ModelFormat.md`, "Version hash".
    public let versionHash: String
    /// The sequences no column owns (`sequences:`), sorted by name.
    public let sequences: [ModelSequence]
    /// The enum types (`enums:`), sorted by name.
    public let enums: [EnumType]
    /// Objects of a tenant's schema that the model does not define and `verify` accepts
    /// (`foreignObjects:`), each as verify names it (`view big_orders`, `trigger order.touch`,
    /// `function touch()`), sorted. Not part of the version hash: the tool never makes them.
    public let foreignObjects: [String]
    let graph: EntityGraph
    private let positions: [String: Int]
    /// The version's tables, mapped once when the version is made.
    private let schema: RelationalSchema

    /// Validates `entities` and creates a version.
    ///
    /// - Parameter file: The file named in diagnostics for entities that carry no location.
    /// - Throws: ``ModelLoadError`` with every mistake found.
    public init(
        name: String, entities: [Entity], sequences: [ModelSequence] = [], enums: [EnumType] = [], foreignObjects: [String] = [], file: String? = nil
    ) throws(ModelLoadError) {
        let diagnostics = ModelValidator(entities: entities, file: file ?? name).validate()
            + ModelValidator.validate(sequences: sequences, entities: entities, file: file ?? name)
            + EnumValidator(enums: enums, entities: entities, file: file ?? name).validate()
        guard diagnostics.isEmpty else { throw ModelLoadError(diagnostics: diagnostics) }
        self.init(validated: entities, sequences: sequences, name: name, enums: enums, foreignObjects: foreignObjects)
    }

    /// Creates a version from entities that passed validation.
    init(validated entities: [Entity], sequences: [ModelSequence] = [], name: String, enums: [EnumType] = [], foreignObjects: [String] = []) {
        self.foreignObjects = Array(Set(foreignObjects)).sorted()
        let graph = EntityGraph(entities)
        let enums = enums.sorted { $0.name < $1.name }
        self.enums = enums
        let mapper = RelationalMapper(graph: graph)
        let sequences = sequences.sorted { $0.name < $1.name }
        let serializer = CanonicalModelSerializer(graph: graph, mapper: mapper, sequences: sequences)
        self.name = name
        self.sequences = sequences
        self.graph = graph
        self.entities = graph.entities.map { entity in
            var resolved = entity
            resolved.tableName = mapper.tableName(of: entity.name)
            resolved.versionHash = SHA256Digest.hex(serializer.entityText(entity.name))
            return resolved
        }
        self.versionHash = SHA256Digest.hex(serializer.versionText() + CanonicalModelSerializer.enumText(enums))
        self.positions = Dictionary(uniqueKeysWithValues: self.entities.enumerated().map { ($1.name, $0) })
        var schema = mapper.schema().markingEnumCasts(enums)
        schema.sequences = sequences
        schema.enumTypes = enums
        schema.takeComments(from: self.entities)
        self.schema = schema
    }

    /// The physical shape of this version in PostgreSQL: one table per root entity (sub-entities
    /// share it, told apart by the `entity` discriminator), plus a join table per many-to-many or
    /// inverse-less to-many relationship. Deterministic: the same model always gives the same
    /// schema. Mapped once, when the version is made; reading it costs nothing.
    public func relationalSchema() -> RelationalSchema { schema }

    /// The entity named `name`.
    public func entity(named name: String) -> Entity? {
        positions[name].map { entities[$0] }
    }

    /// Two versions are equal when their names and entities are (source locations aside).
    public static func == (lhs: ModelVersion, rhs: ModelVersion) -> Bool {
        lhs.name == rhs.name && lhs.entities == rhs.entities && lhs.sequences == rhs.sequences && lhs.enums == rhs.enums
            && lhs.foreignObjects == rhs.foreignObjects
    }

    /// Hashes the name and the version hash.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(versionHash)
    }
}
