import EntityModel
import LibPQ
import TypedSQL

extension ValidationStage {
    /// The diagnosis of a violation in a table keyed otherwise than by an integer id (a uuid or
    /// text `id`, a natural or composite key: ``ArchiveRowKey``), its rows named by their key's text
    /// as the archive writes it; nil for a table keyed by an integer id (or another operation).
    func keyedDiagnosis(_ error: PQError, _ operation: SchemaOperation, on connection: Connection) -> ConstraintViolation? {
        let table: String, constraint: String, query: SQL
        var column: String?
        switch operation {
        case let .setNullable(name, required, false):
            guard let key = ArchiveRowKey(name, in: destination) else { return nil }
            (table, constraint, column) = (name, "NOT NULL on \(required)", required)
            query = "SELECT \(key.text(of: "t")) FROM \(table: name) AS t WHERE t.\(id: required) IS NULL ORDER BY 1 LIMIT 1"
        case let .addUnique(name, unique):
            guard let key = ArchiveRowKey(name, in: destination) else { return nil }
            (table, constraint) = (name, unique.name)
            query = "SELECT pg_catalog.max(\(key.text(of: "t"))) FROM \(table: name) AS t GROUP BY \(unique.columns.map { "t.\(id: $0)" as SQL }, joinedBy: ", ") "
                + "HAVING pg_catalog.count(*) > 1 ORDER BY 1 LIMIT 1"
        case let .addForeignKey(name, foreignKey), let .replaceForeignKey(name, foreignKey):
            guard let key = ArchiveRowKey(name, in: destination), let column = foreignKey.columns.first else { return nil }
            (table, constraint) = (name, foreignKey.name)
            let referenced = foreignKey.referencedColumns.first ?? "id"
            query = "SELECT \(key.text(of: "t")) FROM \(table: name) AS t WHERE t.\(id: column) IS NOT NULL AND NOT EXISTS "
                + "(SELECT 1 FROM \(table: foreignKey.referencedTable) AS r WHERE r.\(id: referenced) = t.\(id: column)) ORDER BY 1 LIMIT 1"
        case let .addCheck(name, check):
            guard let key = ArchiveRowKey(name, in: destination) else { return nil }
            (table, constraint) = (name, check.name)
            query = "SELECT \(key.text(of: "t")) FROM \(table: name) AS t WHERE NOT (\(check.condition.sql)) ORDER BY 1 LIMIT \(int: ConstraintViolation.rowsNamed)"
        default:
            return nil
        }
        let keys = (try? connection.execute(query, schema: schema).compactMap { try $0.decode(String?.self, at: 0) }) ?? []
        var violation = ConstraintViolation(entity: entityName(ofTable: table), table: table, rowID: nil, constraint: constraint, underlying: error)
        violation.rowKeys = keys
        violation.column = column
        return violation
    }
}
