import EntityModel
import TypedSQL

/// A change to an enum type of the model, as an inferred step makes it in the tenant's schema.
///
/// Adding and renaming a value change the catalog only. Removing or reordering values rebuilds the
/// type: the old one steps aside, the new one is created under the name, and every column of the
/// type is cast to it through its text; the old type is dropped once the step's old columns are
/// gone. A column whose rows may hold a removed value writes NULL there (an optional column) or its
/// default (a required one), once the archive took the values; a required column without a default
/// has nothing to write, and a row holding a removed value stops the step with SQLSTATE 22P02.
enum EnumChange: Sendable, Hashable {
    /// `CREATE TYPE … AS ENUM`.
    case create(EnumType)
    /// `ALTER TYPE … ADD VALUE … AFTER …` (or `BEFORE` the first value).
    case addValue(type: String, value: String, after: String?, before: String?)
    /// `ALTER TYPE … RENAME VALUE … TO …`.
    case renameValue(type: String, from: String, to: String)
    /// Rebuilds the type with `values`, casting each of `columns` (names as the step has them at
    /// that point) to the new type.
    case rebuild(type: String, values: [String], columns: [TypedColumn])
    /// `DROP TYPE`, once no column uses it.
    case drop(String)
    /// Drops, before a ``rebuild(type:values:columns:)``, the checks and indexes of the tenant's
    /// tables that depend on the type (a value cast to it: `state <> 'shipped'::order_state`):
    /// they would keep the type the rebuild sets aside. Found by `pg_depend`, whatever their names
    /// (an adopted schema keeps its own); the step makes the model's again after the rebuild.
    case dropDependents(type: String)

    /// A column of an enum type, with its default, which must be dropped while the type changes.
    struct TypedColumn: Sendable, Hashable {
        var table: String
        var column: String
        var defaultValue: DefaultValue?
        /// Values the rebuilt type no longer has that rows of the column may hold (the archive
        /// keeps them): they become ``instead``.
        var removed: [String] = []
        /// What a row holding a removed value holds once the type is rebuilt (nil: NULL).
        var instead: DefaultValue?

        /// The column's value as the rebuilt type's text: a removed value replaced.
        func text(type: String) -> SQL {
            guard !removed.isEmpty else { return "\(id: column)::text" }
            let replacement: SQL = instead.map { "(\($0.sql(for: .enumeration(type))))::text" } ?? "NULL"
            return "CASE WHEN \(id: column)::text IN (\(literals: removed)) THEN \(replacement) ELSE \(id: column)::text END"
        }
    }

    /// Whether it reads or writes rows: a rebuild casts every row of its columns.
    var movesData: Bool {
        if case .rebuild = self { return true }
        return false
    }

    var statements: [SQL] {
        switch self {
        case let .create(type):
            return [type.creation]
        case let .addValue(type, value, after, before):
            let place: SQL = after.map { " AFTER \(literal: $0)" } ?? before.map { " BEFORE \(literal: $0)" } ?? ""
            return ["ALTER TYPE \(table: type) ADD VALUE \(literal: value)\(place)"]
        case let .renameValue(type, from, to):
            return ["ALTER TYPE \(table: type) RENAME VALUE \(literal: from) TO \(literal: to)"]
        case let .rebuild(type, values, columns):
            let aside = Self.asideName(type)
            var statements: [SQL] = ["ALTER TYPE \(table: type) RENAME TO \(objectName: aside)", EnumType(name: type, values: values).creation]
            for column in columns {
                // (Whatever default it has now, which may be one the step drops later.)
                statements.append("ALTER TABLE \(table: column.table) ALTER COLUMN \(id: column.column) DROP DEFAULT")
                statements.append("ALTER TABLE \(table: column.table) ALTER COLUMN \(id: column.column) TYPE \(table: type) "
                    + "USING (\(column.text(type: type)))::\(table: type)")
                if let value = column.defaultValue {
                    statements.append("ALTER TABLE \(table: column.table) ALTER COLUMN \(id: column.column) SET DEFAULT \(value.sql(for: .enumeration(type)))")
                }
            }
            return statements
        case let .drop(type):
            return ["DROP TYPE \(table: type)"]
        case let .dropDependents(type):
            let dependsOnType: SQL = "d.refclassid = 'pg_catalog.pg_type'::pg_catalog.regclass AND d.refobjid = \(qualifiedNameLiteral: type)::pg_catalog.regtype"
            return ["""
                DO $tm_dependents$ DECLARE r record; BEGIN
                    FOR r IN SELECT DISTINCT c.conrelid::pg_catalog.regclass::text AS rel, c.conname::text AS name FROM pg_catalog.pg_constraint AS c
                        JOIN pg_catalog.pg_depend AS d ON d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass AND d.objid = c.oid
                        WHERE c.contype = 'c' AND \(dependsOnType)
                    LOOP EXECUTE pg_catalog.format('ALTER TABLE %s DROP CONSTRAINT %I', r.rel, r.name); END LOOP;
                    FOR r IN SELECT DISTINCT i.indexrelid::pg_catalog.regclass::text AS index FROM pg_catalog.pg_index AS i
                        JOIN pg_catalog.pg_depend AS d ON d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objid = i.indexrelid
                        WHERE \(dependsOnType)
                    LOOP EXECUTE pg_catalog.format('DROP INDEX %s', r.index); END LOOP;
                END $tm_dependents$
                """]
        }
    }

    /// The name the old type has while a rebuild replaces it.
    static func asideName(_ type: String) -> String { "_tm_old_" + type.prefix(50) }

    /// What it does, in a few words, for plans.
    var summary: String {
        switch self {
        case let .create(type): "creating the enum type \(type.name)"
        case let .addValue(type, value, _, _): "adding the value \(value) to the enum type \(type)"
        case let .renameValue(type, from, to): "renaming the value \(from) of the enum type \(type) to \(to)"
        case let .rebuild(type, values, _): "rebuilding the enum type \(type) with the values \(values.joined(separator: ", "))"
        case let .drop(type): "dropping the enum type \(type)"
        case let .dropDependents(type): "dropping the checks and indexes that use the enum type \(type), made again once it is rebuilt"
        }
    }
}
