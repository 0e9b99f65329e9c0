import EntityModel
import LibPQ

/// Runs the Swift policies of a mapped step through their stages, streaming each mapping's source
/// rows through a cursor in batches, so memory does not grow with the number of rows.
final class PolicyRunner {
    let model: MappingModel
    let compiler: MappingCompiler
    let context: PolicyContext
    /// How many source rows one FETCH reads.
    let fetchSize: Int
    private var policies: [(mapping: EntityMapping, policy: any MigrationPolicy)] = []
    private var cursorCount = 0

    init(model: MappingModel, compiler: MappingCompiler, context: PolicyContext, fetchSize: Int = 5_000) {
        self.model = model
        self.compiler = compiler
        self.context = context
        self.fetchSize = fetchSize
    }

    /// begin, createDestinationInstances for each source row, endInstanceCreation.
    func createInstances(for mapping: EntityMapping) throws {
        guard let name = mapping.policy else { return }
        guard let policy = model.policies.makePolicy(named: name) else {
            throw PolicyError(mapping: mapping.name, policy: name, stage: "begin", sourceRowID: nil, underlying: "no policy named \(name) is registered")
        }
        policies.append((mapping, policy))
        try stage("begin", mapping, policy) { try policy.begin(context) }
        try stream(mapping, related: policy.transforms) { row in
            try self.stage("createDestinationInstances", mapping, policy, row: row.id) { try policy.createDestinationInstances(for: row, in: self.context) }
            return true
        }
        try stage("endInstanceCreation", mapping, policy) {
            try policy.endInstanceCreation(context)
            try context.flush()
        }
    }

    /// createRelationships for each source row, endRelationshipCreation.
    func createRelationships(for mapping: EntityMapping) throws {
        guard let policy = policies.first(where: { $0.mapping.name == mapping.name })?.policy else { return }
        context.mapping = mapping
        context.relationshipPassIsDefault = false
        try stream(mapping, related: policy.transforms) { row in
            try self.stage("createRelationships", mapping, policy, row: row.id) { try policy.createRelationships(for: row, in: self.context) }
            // A policy without a relationship pass: no need to read every row again.
            return !self.context.relationshipPassIsDefault
        }
        try stage("endRelationshipCreation", mapping, policy) {
            try policy.endRelationshipCreation(context)
            try context.flush()
        }
    }

    /// validate and end, once the destination's constraints are in place.
    func finish() throws {
        for (mapping, policy) in policies {
            context.mapping = mapping
            try stage("validate", mapping, policy) { try policy.validate(context); try context.flush() }
        }
        for (mapping, policy) in policies {
            context.mapping = mapping
            try stage("end", mapping, policy) { try policy.end(context); try context.flush() }
        }
        context.logAggregatedWarnings()
    }

    /// Runs one stage, naming the mapping, the policy, the stage and the row in any error.
    private func stage(_ name: String, _ mapping: EntityMapping, _ policy: any MigrationPolicy, row: Int64? = nil, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as PolicyError {
            throw error
        } catch {
            var failure = PolicyError(mapping: mapping.name, policy: mapping.policy ?? "\(type(of: policy))", stage: name, sourceRowID: row, underlying: "\(error)")
            failure.sqlState = (error as? PQError)?.sqlState ?? (error as? ConstraintViolation)?.underlying.sqlState
            throw failure
        }
    }

    /// Reads the mapping's source rows (filtered) in id order, `fetchSize` at a time, from a cursor,
    /// until `body` returns false.
    /// The to-many relationships named in `related` (a policy's `transforms`) come as id lists,
    /// read by the same query (``SourceRow/related(_:)``).
    private func stream(_ mapping: EntityMapping, related: [String], _ body: (SourceRow) throws -> Bool) throws {
        let connection = context.connection
        let q = connection
        guard let table = compiler.sourceTable(of: mapping.source) else { return }
        var selection = MappingCompiler.Selection()
        var columns: [String: Int] = [:]
        var selectList = ["source.id"]
        let source = compiler.source
        for (_, attribute) in source.allAttributes(of: mapping.source) {
            columns[attribute.name] = selectList.count
            selectList.append("source.\(q.quoteIdentifier(compiler.currentColumn(attribute.columnName, of: mapping.source)))")
        }
        let sourceTable = compiler.differ.old.table(forEntity: source.rootEntity(of: mapping.source))
        for (declaredBy, relationship) in source.allRelationships(of: mapping.source) {
            guard let column = sourceTable?.column(withOrigin: .relationship(entity: declaredBy, relationship: relationship.name)) else { continue }
            columns[relationship.name] = selectList.count
            selectList.append("source.\(q.quoteIdentifier(compiler.currentColumn(column.name, of: mapping.source)))")
        }
        for name in related where columns[name] == nil {
            guard let links = compiler.sourceLinks(of: mapping.source, name)?.text(schema: context.schema, quoting: q) else { continue }
            columns[name] = selectList.count
            selectList.append("pg_catalog.array_to_string(ARRAY(SELECT tm_links.y FROM (\(links)) AS tm_links WHERE tm_links.x = source.id ORDER BY tm_links.y), ',')")
        }
        let conditions = try compiler.conditions(of: mapping, into: &selection).map { $0.text(schema: context.schema, quoting: q) }
        cursorCount += 1
        let cursor = "tm_source_\(cursorCount)"
        let joins: String = selection.joins.map { " " + $0.text(schema: context.schema, quoting: q) }.joined()
        let whereClause: String = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let query = "SELECT \(selectList.joined(separator: ", ")) FROM \(q.qualified(context.schema, table)) AS source\(joins)\(whereClause) ORDER BY source.id"
        try connection.execute("DECLARE \(cursor) NO SCROLL CURSOR FOR \(query)")
        defer { _ = try? connection.execute("CLOSE \(cursor)") }
        while true {
            let batch = try connection.execute("FETCH FORWARD \(fetchSize) FROM \(cursor)")
            if batch.rowCount == 0 { break }
            for row in batch {
                guard try body(SourceRow(id: try row.decode(Int64.self, at: 0), row: row, columns: columns)) else { return }
            }
            if batch.rowCount < fetchSize { break }
        }
    }
}
