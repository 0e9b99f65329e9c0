import EntityModel
import LibPQ
import TypedSQL

/// The model's own enum types and sequences in a shadow (or delta) schema. The shadow's tables
/// name them in the shadow's schema, as every DDL of the model names them in the schema it runs
/// in, so each schema the steps run in has its own: made as the source version has them (a
/// sequence at the live one's position), then changed by the steps exactly as offline (`ADD VALUE`,
/// `RENAME VALUE`, a rebuild; `ALTER SEQUENCE`). The cutover moves the shadow's into the tenant's
/// schema with the tables, and the tenant's out with the old ones.
///
/// No cast leads from one enum type to another, so a value that crosses schemas (the live rows
/// into the shadow, the delta's into the shadow) goes through its text (``carried(_:_:)``).
extension ShadowTables {
    /// `CREATE TYPE` for each enum type, `CREATE SEQUENCE` for each sequence of the version, in the
    /// schema the statements are rendered for.
    var modelObjectCreation: [SQL] {
        relational.enumTypes.map(\.creation) + relational.sequences.map(\.creation)
    }

    /// Each sequence of the version set where the live one stands (its last value, and whether it
    /// was drawn), so that a step narrowing its type fails as offline and the position is right.
    var sequencePositions: [SQL] {
        relational.sequences.map { sequence in
            "SELECT pg_catalog.setval(\(qualifiedNameLiteral: sequence.name)::pg_catalog.regclass, l.last_value, l.is_called) "
                + "FROM \(schema: live, table: sequence.name) AS l"
        }
    }

    /// `alias.column` as a table of the schema the statement is rendered for takes it: a value of
    /// an enum of the model through its text into that schema's type of the name.
    public static func carried(_ alias: SQLAlias, _ column: Column) -> SQL {
        column.type.enumName == nil ? "\(alias: alias).\(id: column.name)" : "\(alias: alias).\(id: column.name)\(column.type.cast)"
    }
}
