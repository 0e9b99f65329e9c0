import EntityModel
import Foundation
import LibPQ
import TypedSQL

/// The actual names of the indexes and constraints a step addresses by name, in one tenant.
///
/// A step drops and renames indexes and constraints by the names the model derives
/// (`items_code_idx`, `items_check`). A tenant made from the model has them; an adopted one keeps
/// the names its schema had (Rails' `index_items_on_code`, a hand-written `qty_not_negative`), which
/// `verify` accepts, as it compares definitions names aside. Before a step runs in a tenant, its
/// executor reads the tables the step addresses in one catalog query, pairs each of the source
/// version's indexes and constraints of those tables with the tenant's object of the same
/// definition (the one of the derived name where that is the same definition), and the step then
/// addresses the tenant's own names (``SchemaOperation/addressing(_:)``). Nothing is renamed
/// beforehand: the compiled step stays one value for every tenant, and Citus, which cannot rename a
/// constraint that owns no index on a distributed table, is not asked to.
///
/// Definitions are compared as `verify` compares them, names aside: a primary key's and a unique
/// constraint's columns; a foreign key's columns, target, actions and deferral; an index's keys,
/// uniqueness, method and predicate; a check's columns. Where a table has more than one candidate
/// of the same shape (two checks on one column, two expression indexes), their text decides
/// (`pg_get_constraintdef`, `pg_get_indexdef`, compared without spacing, parentheses or casts), and
/// what other objects already took is out. An addressed object with no candidate, or with several,
/// fails the step before it changes anything (``AdoptedNameUnresolved``).
struct AdoptedNames: Sendable {
    /// An object a step addresses: its source table and the name the model derives.
    struct Object: Hashable, Sendable {
        let table: String
        let name: String
    }

    /// The tenant's name of each addressed object whose name differs from the derived one.
    private(set) var actual: [Object: String] = [:]
    /// Each addressed derived name's source table, as operations name them (the source or destination table).
    private var tables: [String: [String]] = [:]

    /// The objects `operations` address by name, with what the source schema says of them: the
    /// derived names with their source table (objects the source does not have, which the step
    /// itself makes, are left alone).
    static func addressed(by operations: [SchemaOperation], in source: RelationalSchema) -> [Object] {
        var objects: [Object] = []
        for operation in operations {
            guard let (hint, name) = operation.addressedName else { continue }
            let holders = source.tables.filter { Definition.all(of: $0).contains { $0.name == name } }
            let holder = holders.first { $0.name == hint } ?? (holders.count == 1 ? holders[0] : nil)
            if let holder, !objects.contains(Object(table: holder.name, name: name)) { objects.append(Object(table: holder.name, name: name)) }
        }
        return objects
    }

    /// Reads the tables of `objects` in `schema` (one catalog query) and pairs their definitions
    /// with `source`'s. Throws ``AdoptedNameUnresolved`` for an object with no or several candidates.
    static func resolve(_ objects: [Object], source: RelationalSchema, schema: String, on connection: Connection) throws -> AdoptedNames {
        var names = AdoptedNames()
        guard !objects.isEmpty else { return names }
        let tableNames = Array(Set(objects.map(\.table))).sorted()
        var catalog: [String: [(name: String, definition: Definition)]] = [:]
        for row in try connection.execute(query(tables: tableNames), [schema]) {
            catalog[try row.decode(String.self, column: "table_name"), default: []].append((try row.decode(String.self, column: "name"), try Definition(row)))
        }
        for tableName in tableNames {
            guard let table = source.table(named: tableName) else { continue }
            let pairs = pair(Definition.all(of: table), catalog[tableName] ?? [])
            for object in objects where object.table == tableName {
                guard let model = Definition.all(of: table).first(where: { $0.name == object.name }) else { continue }
                switch pairs[object.name] {
                case let name? where name != object.name:
                    names.actual[object] = name
                    names.tables[object.name, default: []].append(tableName)
                case .some:
                    break
                case nil:
                    let candidates = (catalog[tableName] ?? []).filter { $0.definition.hasShape(of: model.definition) }.map(\.name)
                    throw AdoptedNameUnresolved(schema: schema, table: tableName, object: object.name, kind: model.definition.kind, candidates: candidates)
                }
            }
        }
        return names
    }

    /// Whether every addressed object has its derived name.
    var isEmpty: Bool { actual.isEmpty }

    /// The tenant's name of the object the model names `name`, addressed in table `hint`.
    func name(_ name: String, table hint: String?) -> String {
        guard let holders = tables[name] else { return name }
        let table = holders.first { $0 == hint } ?? holders[0]
        return actual[Object(table: table, name: name)] ?? name
    }

    /// Pairs the model's objects of one table with the catalog's, kind by kind: first the one of
    /// the same name and shape; then, round by round, the only candidate of the same shape that no
    /// other took, or the only one of those of the same text. Returns the pairs, by model name.
    static func pair(_ model: [(name: String, definition: Definition)], _ catalog: [(name: String, definition: Definition)]) -> [String: String] {
        var paired: [String: String] = [:]
        var taken: Set<String> = []
        for object in model {
            if let same = catalog.first(where: { $0.name == object.name && $0.definition.hasShape(of: object.definition) }) {
                paired[object.name] = same.name
                taken.insert(same.name)
            }
        }
        var progress = true
        while progress {
            progress = false
            for object in model where paired[object.name] == nil {
                let shaped = catalog.filter { !taken.contains($0.name) && $0.definition.hasShape(of: object.definition) }
                let texts = shaped.filter { $0.definition.text == object.definition.text }
                guard let only = shaped.count == 1 ? shaped.first : texts.count == 1 ? texts.first : nil else { continue }
                paired[object.name] = only.name
                taken.insert(only.name)
                progress = true
            }
        }
        return paired
    }

    /// The primary key, unique, foreign-key and check constraints and the indexes (but those of a
    /// constraint) of `tables` in the schema `$1`, each with its name and definition.
    static func query(tables: [String]) -> SQL {
        """
        SELECT c.relname::text AS table_name, con.conname::text AS name, con.contype::text AS kind,
               \(SchemaSnapshot.constraintColumns) AS columns,
               CASE WHEN r.relnamespace = n.oid THEN r.relname::text
                    ELSE quote_ident(rn.nspname) || '.' || quote_ident(r.relname) END AS referenced_table,
               \(SchemaSnapshot.referencedColumns) AS referenced_columns,
               con.confdeltype::text AS delete_action, con.confupdtype::text AS update_action, con.condeferrable AS deferrable,
               pg_catalog.pg_get_constraintdef(con.oid) AS definition, NULL::text AS method, NULL::text AS predicate, false AS is_unique
        FROM pg_catalog.pg_constraint con
        JOIN pg_catalog.pg_class c ON c.oid = con.conrelid
        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_catalog.pg_class r ON r.oid = con.confrelid
        LEFT JOIN pg_catalog.pg_namespace rn ON rn.oid = r.relnamespace
        WHERE n.nspname = $1 AND c.relname IN (\(literals: tables)) AND con.contype IN ('p', 'u', 'f', 'c')
        UNION ALL
        SELECT c.relname::text, i.relname::text, 'i', \(SchemaSnapshot.indexKeys), NULL, NULL, NULL, NULL, NULL, NULL,
               am.amname::text, pg_catalog.pg_get_expr(x.indpred, x.indrelid), x.indisunique
        FROM pg_catalog.pg_index x
        JOIN pg_catalog.pg_class c ON c.oid = x.indrelid
        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid
        JOIN pg_catalog.pg_am am ON am.oid = i.relam
        WHERE n.nspname = $1 AND c.relname IN (\(literals: tables))
          AND NOT EXISTS (
              SELECT 1 FROM pg_catalog.pg_constraint con
              WHERE con.conindid = x.indexrelid AND con.conrelid = x.indrelid AND con.contype IN ('p', 'u'))
        """
    }
}

extension AdoptedNames {
    /// What an index or constraint is, names aside, as the model renders it or the catalog holds it.
    struct Definition: Hashable, Sendable {
        /// `p`, `u`, `f`, `c` as `pg_constraint.contype`; `i` for an index of no constraint.
        let kind: String
        /// The columns in key order (a check's sorted); an index's keys: a column's name, or `(…)` for an expression.
        let keys: [String]
        /// A foreign key's target, columns, `ON DELETE`, `ON UPDATE` and deferrability; an index's uniqueness, method and whether it is partial.
        let details: [String]
        /// The definition's text without spacing, parentheses, quotes or casts: what decides between candidates of one shape.
        let text: String

        /// Whether `other` is the same kind of object on the same columns, with the same details.
        func hasShape(of other: Definition) -> Bool {
            guard kind == other.kind, details == other.details, keys.count == other.keys.count else { return false }
            guard kind == "i" else { return keys == other.keys }
            // An expression key is compared by text only: the catalog prints it as PostgreSQL normalized it.
            return zip(keys, other.keys).allSatisfy { $0.hasPrefix("(") || $1.hasPrefix("(") ? $0.hasPrefix("(") == $1.hasPrefix("(") : $0 == $1 }
        }

        /// The catalog's definition in a row of ``AdoptedNames/query(tables:)``.
        init(_ row: Row) throws {
            kind = try row.decode(String.self, column: "kind")
            let columns = try row.decode(PQJSON.self, column: "columns").decode([String].self)
            switch kind {
            case "f":
                keys = columns
                details = [try row.decode(String.self, column: "referenced_table"),
                           try row.decode(PQJSON.self, column: "referenced_columns").decode([String].self).joined(separator: ","),
                           try row.decode(String.self, column: "delete_action"), try row.decode(String.self, column: "update_action"),
                           try row.decode(Bool.self, column: "deferrable") ? "deferred" : ""]
                text = ""
            case "c":
                keys = columns.sorted()
                details = []
                text = Self.bare(try row.decode(String.self, column: "definition"))
            case "i":
                let predicate = try row.decode(String?.self, column: "predicate")
                keys = columns.map { $0.hasPrefix("(") ? $0 : Self.keyColumn($0) }
                details = [try row.decode(Bool.self, column: "is_unique") ? "unique" : "", try row.decode(String.self, column: "method"), predicate == nil ? "" : "partial"]
                text = Self.bare(columns.joined(separator: ",") + (predicate ?? ""))
            default:
                keys = columns
                details = []
                text = ""
            }
        }

        init(kind: String, keys: [String], details: [String] = [], text: String = "") {
            self.kind = kind
            self.keys = keys
            self.details = details
            self.text = text
        }

        /// Every index and constraint of `table` as the model renders it, by derived name.
        static func all(of table: Table) -> [(name: String, definition: Definition)] {
            var all: [(name: String, definition: Definition)] = []
            if table.keyIsUniqueIndex != true { all.append((table.primaryKey.name, Definition(kind: "p", keys: table.primaryKey.columns))) }
            for unique in table.uniqueConstraints { all.append((unique.name, Definition(kind: "u", keys: unique.columns))) }
            for key in table.foreignKeys {
                all.append((key.name, Definition(kind: "f", keys: key.columns, details: [
                    key.referencedTable, key.referencedColumns.joined(separator: ","), actionCode(key.onDelete), actionCode(key.onUpdate ?? .noAction),
                    key.isDeferred == true ? "deferred" : "",
                ])))
            }
            for check in table.checkConstraints {
                all.append((check.name, Definition(kind: "c", keys: check.condition.columns.sorted(), text: bare("CHECK (\(check.condition.sql.text(schema: "")))"))))
            }
            for index in table.indexes {
                let keys = index.elements ?? index.columns
                all.append((index.name, Definition(
                    kind: "i", keys: keys.map { isPlainKey($0) ? keyColumn($0) : "(\($0))" },
                    details: [index.isUnique == true ? "unique" : "", index.method ?? "btree", index.predicate == nil ? "" : "partial"],
                    text: bare(keys.joined(separator: ",") + (index.predicate ?? ""))
                )))
            }
            return all
        }

        /// `pg_constraint`'s code of a referential action.
        private static func actionCode(_ action: ReferentialAction) -> String {
            switch action {
            case .noAction: "a"
            case .restrict: "r"
            case .cascade: "c"
            case .setNull: "n"
            }
        }

        /// Whether an index key as the model writes it is a column (`code`, `"Code"`, `title varchar_pattern_ops`, `seen DESC`).
        private static func isPlainKey(_ key: String) -> Bool {
            key.range(of: #"^("[^"]+"|[A-Za-z_][A-Za-z0-9_$]*)(\s+[A-Za-z_ ]+)?$"#, options: .regularExpression) != nil
        }

        /// A plain key's column, with its operator class and order (`title varchar_pattern_ops`), unquoted.
        private static func keyColumn(_ key: String) -> String {
            key.replacingOccurrences(of: "\"", with: "").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }

        /// `text` without spacing, parentheses, quotes or casts, in lower case.
        static func bare(_ text: String) -> String {
            text.lowercased()
                .replacingOccurrences(of: #"::[a-z_][a-z0-9_ ]*(\[\])?"#, with: "", options: .regularExpression)
                .filter { !$0.isWhitespace && !"()\"".contains($0) }
        }
    }
}

extension CheckConstraint.Condition {
    /// The columns the condition reads.
    var columns: [String] {
        switch self {
        case let .isOneOf(column, _): [column]
        case let .requiredForEntities(column, discriminator, _): [column, discriminator]
        case let .expression(_, columns): columns
        }
    }
}

/// An index or constraint a step addresses is not in the tenant's schema under any name, or more
/// than one object there has its definition: the step fails before it changes anything (42704).
public struct AdoptedNameUnresolved: Error, CustomStringConvertible, SQLStateReporting {
    /// The tenant's schema.
    public let schema: String
    public let table: String
    /// The name the model derives for the object.
    public let object: String
    /// `p`, `u`, `f`, `c` (as `pg_constraint.contype`) or `i` for an index.
    public let kind: String
    /// The tenant's objects of the same shape (none: missing; several: ambiguous).
    public let candidates: [String]

    /// `42704`, undefined object.
    public var reportedSQLState: SQLState? { "42704" }

    public var description: String {
        let what = ["p": "primary key", "u": "unique constraint", "f": "foreign key", "c": "check constraint", "i": "index"][kind] ?? "object"
        let found = candidates.isEmpty ? "no \(what) of its definition is there under any name"
            : "\(candidates.count) of its shape are there (\(candidates.joined(separator: ", "))) and their text does not tell which"
        return "tenant schema \(schema), table \(table): the step addresses the \(what) the model names \(object), but \(found) (SQLSTATE 42704)"
    }
}

extension SchemaOperation {
    /// The name of the index or constraint the operation addresses by name, with the table it
    /// names for it (nil for an index, whose name is the schema's): a drop's or a rename's.
    var addressedName: (table: String?, name: String)? {
        switch self {
        case let .dropConstraint(table, name, _): (table, name)
        case let .renameConstraint(table, from, _, _): (table, from)
        case let .dropIndex(name): (nil, name)
        case let .renameIndex(from, _): (nil, from)
        case let .addPrimaryKey(_, _, _, index?): (nil, index)
        default: nil
        }
    }

    /// The operation addressing the tenant's own name of what it drops or renames.
    func addressing(_ names: AdoptedNames) -> SchemaOperation {
        switch self {
        case let .dropConstraint(table, name, ownsIndex): .dropConstraint(table: table, name: names.name(name, table: table), ownsIndex: ownsIndex)
        case let .renameConstraint(table, from, to, ownsIndex): .renameConstraint(table: table, from: names.name(from, table: table), to: to, ownsIndex: ownsIndex)
        case let .dropIndex(name): .dropIndex(name: names.name(name, table: nil))
        case let .renameIndex(from, to): .renameIndex(from: names.name(from, table: nil), to: to)
        case let .addPrimaryKey(table, name, columns, index?): .addPrimaryKey(table: table, name: name, columns: columns, usingIndex: names.name(index, table: nil))
        default: self
        }
    }
}

extension StepProgram {
    /// The program with the statements that address an index or constraint by name addressing the
    /// tenant's own names (each such operation makes one statement); every statement keeps its
    /// operation, as compiled.
    func addressing(_ names: AdoptedNames) -> StepProgram {
        guard !names.isEmpty else { return self }
        func resolved(_ statements: [Statement]) -> [Statement] {
            statements.map { statement in
                guard statement.operation.addressedName != nil, let sql = statement.operation.addressing(names).statements.first else { return statement }
                return Statement(sql: sql, movesData: statement.movesData, operation: statement.operation)
            }
        }
        return StepProgram(schemaChanges: resolved(schemaChanges), dataMoves: resolved(dataMoves), closing: resolved(closing),
                           validatesClosing: validatesClosing, mappings: mappings, mapped: mapped)
    }
}
