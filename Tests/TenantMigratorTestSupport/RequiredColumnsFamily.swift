import EntityModel
import MigrationEngine

/// A family whose step v1 → v2 makes columns required (NOT NULL) in each of the ways a step can:
/// `Item.bin` was optional and becomes required (the mapping sets it to its value), `Item.shelf` is
/// new and required without a default, filled by the mapping from `note`, and the new entity `Tag`
/// is a table created with its `label` NOT NULL. A row whose `bin` or `note` is NULL breaks the
/// step; PostgreSQL names no constraint then (23502 gives the table and the column).
public enum RequiredColumnsFamily {
    public static let v1 = """
        entities:
          Item:
            attributes:
              code: { type: varchar(20) }
              bin: { type: varchar(10), optional: true }
              note: { type: text, optional: true }
        """
    public static let v2 = """
        entities:
          Item:
            attributes:
              code: { type: varchar(20) }
              bin: { type: varchar(10) }
              note: { type: text, optional: true }
              shelf: { type: text }
          Tag:
            attributes:
              label: { type: text }
              hint: { type: text, optional: true }
        """

    /// v1 → v2: every item in place, its bin as it was (a NULL stays NULL), its new shelf from its
    /// note, with as many `!` as 10 divided by the note's length: NULL from a NULL note, and a
    /// division by zero (22012) from an empty one.
    public static let up = """
        source: v1
        destination: v2
        entityMappings:
          - name: ItemToItem
            source: Item
            destination: Item
            attributes:
              bin: source.bin
              shelf: "source.note || repeat('!', 10 / length(source.note))"
        """

    /// The versions, by name.
    public static let versions = [("v1", v1), ("v2", v2)]

    /// The family, loaded.
    public static func family() throws -> ModelFamily {
        try ModelFamily(name: "Shelves", versions: versions.map { try ModelVersion(name: $0.0, yaml: $0.1, file: "Shelves/\($0.0).yaml") })
    }

    /// The planner of ``family()`` with its mapping ``up``.
    public static func planner() throws -> MigrationPlanner {
        let family = try family()
        let mapping = try MappingModel.load(yaml: up, file: "Shelves/Mappings/v1-to-v2.yaml", family: family, policies: PolicyRegistry())
        return MigrationPlanner(family: family, mappings: [mapping])
    }
}
