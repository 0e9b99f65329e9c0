/// Describes a schema that already exists in the model's vocabulary: one entity per table with an
/// `id` key, an attribute per column, a to-one (with its inverse) per foreign key, a many-to-many
/// per two-key join table, and single-table inheritance where a discriminator column `entity` with
/// its check constraint shows one. Table and column names are kept through `table:` and `column:`
/// where the model's default naming would differ.
///
/// It works on a ``SchemaSnapshot`` (read one with `SchemaSnapshot.read(schema:on:)`), so it needs
/// no connection. Whatever the model cannot say is listed as an ``ImportNote`` with a reason; the
/// rest renders to the same tables, so `tenant adopt` accepts the schema at the imported version.
public struct SchemaImporter: Sendable {
    /// The schema to describe.
    public let snapshot: SchemaSnapshot

    /// An importer of the schema `snapshot` describes.
    public init(snapshot: SchemaSnapshot) {
        self.snapshot = snapshot
    }

    /// The imported version, and what it could not carry.
    public struct Result: Sendable {
        /// The version that describes the schema.
        public var version: ModelVersion
        /// What it could not carry as it was.
        public var notes: [ImportNote]
    }

    /// Describes the schema as a version named `name`.
    ///
    /// - Throws: ``ModelLoadError`` when the entities built from the schema break a rule of the
    ///   model format in a way the importer did not foresee (its message names the element).
    public func importVersion(named name: String) throws(ModelLoadError) -> Result {
        var plan = ImportPlan(snapshot: snapshot)
        plan.classifyTables()
        plan.nameEntities()
        plan.readHierarchies()
        plan.applyJoinTableNames()
        plan.readColumns()
        plan.readJoinTables()
        plan.nameInverses()
        plan.readKeys()
        let sequences = plan.readSequences()
        let entities = plan.entities()
        let version = try ModelVersion(name: name, entities: entities, sequences: sequences, enums: plan.enumTypes, file: "imported \(name)")
            .takingComments(from: snapshot, file: "imported \(name)")
        return Result(version: version, notes: plan.notes)
    }
}
