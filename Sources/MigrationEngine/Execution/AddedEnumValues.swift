import EntityModel
import LibPQ
import TypedSQL

/// The enum types that gained values by `ALTER TYPE … ADD VALUE` (catalog only) in a tenant's
/// migration transaction, shared by the steps one executor runs.
///
/// PostgreSQL refuses to use a value added in the transaction before it commits (SQLSTATE 55P04),
/// and a whole path is one transaction per tenant. So such a type is rebuilt under its name
/// (``EnumChange/rebuild(type:values:columns:)``, a type made in the transaction may use all its
/// values) before anything could write an added value: in the step that added it, before the
/// archive gives values back into the type's columns; and before the path's next step runs.
/// A value added by a path's last step (the common case) stays a catalog-only change.
public final class AddedEnumValues {
    /// Types that gained values and were not rebuilt since.
    private(set) var types: Set<String> = []

    public init() {}

    /// The types `step` adds values to with `ADD VALUE`.
    static func added(by step: MigrationStep) -> Set<String> {
        Set(step.program.operations.compactMap { operation -> String? in
            if case let .enumChange(.addValue(type, _, _, _)) = operation { return type }
            return nil
        })
    }

    /// Notes the types `step` added values to (once its schema changes ran).
    func note(_ step: MigrationStep) {
        types.formUnion(Self.added(by: step))
    }

    /// Rebuilds the noted types among `which` (nil: all of them) as `version` has them (values,
    /// columns and their defaults), in `schema`. Returns the number of statements sent.
    func rebuild(_ which: Set<String>? = nil, as version: RelationalSchema, schema: String, on connection: Connection) throws -> Int {
        let chosen = which.map { types.intersection($0) } ?? types
        var statements = 0
        for type in version.enumTypes where chosen.contains(type.name) {
            let columns = version.tables.flatMap { table in
                table.columns.filter { $0.type == type.sqlType }.map { EnumChange.TypedColumn(table: table.name, column: $0.name, defaultValue: $0.defaultValue) }
            }
            // (The checks and indexes that cast to the type would keep the one set aside.)
            let (checks, indexes) = version.expressions(castingTo: type.name)
            let remade: [SchemaOperation] = checks.map { .addCheck(table: $0.table, $0.check) } + indexes.map { .createIndex(table: $0.table, $0.index) }
            let dropped = remade.isEmpty ? [] : EnumChange.dropDependents(type: type.name).statements
            for sql in dropped + EnumChange.rebuild(type: type.name, values: type.values, columns: columns).statements
                + remade.flatMap(\.statements) + EnumChange.drop(EnumChange.asideName(type.name)).statements {
                try connection.execute(sql, schema: schema)
                statements += 1
            }
        }
        types.subtract(chosen)
        return statements
    }
}
