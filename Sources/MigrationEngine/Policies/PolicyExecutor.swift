import EntityModel
import LibPQ
import TypedSQL

/// Runs the Swift policies of a mapped step through their stages, streaming each mapping's source
/// rows through a cursor in batches, so memory does not grow with the number of rows. Each policy
/// mapping gets its own ``PolicyContext`` on the step's ``PolicySession``.
///
/// The step calls, in order: ``createInstances(for:)`` for each mapping, ``createRelationships(for:)``
/// for each mapping, then ``finish()`` once the destination's constraints are in place.
final class PolicyExecutor {
    let model: MappingModel
    let session: PolicySession
    /// How many source rows one FETCH reads.
    let fetchSize: Int
    private var policies: [(context: PolicyContext, policy: any MigrationPolicy)] = []
    /// Which policies keep the default relationship pass, as the fleet run knows it (nil: each
    /// step probes its policies).
    let relationshipPasses: RelationshipPasses?
    private var cursorCount = 0
    /// Cursors opened before a mapping's own SQL ran (``prepare(_:)``), by mapping: one per pass.
    private var preparedCursors: [String: [SourceCursor]] = [:]
    /// The judges of the policies' statements, by mapping.
    private var judges: [String: any StatementJudge] = [:]

    /// Each mapping's source query, shared by the tenants that run the same compiled step.
    let sourceQueries: SourceQueries
    /// Whether row-local policies are checked as they run (online: ``RowLocalityCheck``).
    let checksLocality: Bool

    init(model: MappingModel, session: PolicySession, relationshipPasses: RelationshipPasses? = nil, sourceQueries: SourceQueries = SourceQueries(),
         fetchSize: Int = 5_000, checksLocality: Bool = false) {
        self.checksLocality = checksLocality
        self.model = model
        self.session = session
        self.relationshipPasses = relationshipPasses
        self.sourceQueries = sourceQueries
        self.fetchSize = fetchSize
    }

    /// Whether `mapping`'s policy is known to keep the default relationship pass.
    private func hasIdleRelationshipPass(_ mapping: EntityMapping) -> Bool {
        mapping.policy.map { relationshipPasses?.isIdle($0) ?? false } ?? false
    }

    /// Before a mapping's declarative SQL runs: when the mapping changes its rows' entity in place,
    /// opens the cursors of both passes now (of the first alone when the policy's relationship
    /// pass is known to be idle), so its policy sees the mapping's source rows as they were (a
    /// cursor reads the snapshot of its DECLARE), not as rows of the destination entity that the
    /// source entity's condition no longer selects.
    func prepare(_ mapping: EntityMapping) throws {
        guard let name = mapping.policy, let policy = model.policies.makePolicy(named: name),
              session.compiler.isInPlace(mapping), session.compiler.isRetyped(mapping) else { return }
        let passes = hasIdleRelationshipPass(mapping) ? 1 : 2
        preparedCursors[mapping.name] = try (0..<passes).map { _ in try declareCursor(mapping, related: policy.transforms) }
    }

    /// begin, createDestinationInstances for each source row, endInstanceCreation.
    func createInstances(for mapping: EntityMapping) throws {
        guard let name = mapping.policy else { return }
        guard let policy = model.policies.makePolicy(named: name) else {
            throw PolicyError(mapping: mapping.name, policy: name, stage: "begin", sourceRowID: nil, underlying: "no policy named \(name) is registered")
        }
        var locality: RowLocalityCheck?
        if checksLocality, case let .rowLocal(shared) = policy.locality {
            locality = RowLocalityCheck(policy: name, mapping: mapping.name, sharedRows: shared)
        }
        let context = PolicyContext(mapping: mapping, session: session, locality: locality)
        policies.append((context, policy))
        try stage("begin", context, policy) { try policy.begin(context) }
        try stream(mapping, related: policy.transforms) { row in
            try self.stage("createDestinationInstances", context, policy, row: row, instancePass: true) { try policy.createDestinationInstances(for: row, in: context) }
            return true
        }
        try stage("endInstanceCreation", context, policy) {
            try policy.endInstanceCreation(context)
            try context.flush()
            try locality?.finishInstancePass()
        }
    }

    /// createRelationships for each source row, endRelationshipCreation.
    func createRelationships(for mapping: EntityMapping) throws {
        guard let (context, policy) = policies.first(where: { $0.context.mapping.name == mapping.name }) else { return }
        if !hasIdleRelationshipPass(mapping) {
            context.relationshipPassIsDefault = false
            let pass = { (row: SourceRow) throws -> Bool in
                try self.stage("createRelationships", context, policy, row: row) { try policy.createRelationships(for: row, in: context) }
                // A policy without a relationship pass: no need to read every row again.
                return !context.relationshipPassIsDefault
            }
            // The first row alone first: a policy without a relationship pass needs no more.
            try stream(mapping, related: policy.transforms, firstFetch: 1, pass)
            if context.relationshipPassIsDefault, let name = mapping.policy { relationshipPasses?.noteIdle(name) }
        }
        try stage("endRelationshipCreation", context, policy) {
            try policy.endRelationshipCreation(context)
            try context.flush()
        }
    }

    /// validate and end, once the destination's constraints are in place.
    func finish() throws {
        for (context, policy) in policies {
            try stage("validate", context, policy) { try policy.validate(context); try context.flush() }
        }
        for (context, policy) in policies {
            try stage("end", context, policy) { try policy.end(context); try context.flush() }
        }
        session.finish()
    }

    /// The judge of the statements `context`'s policy sends (``PolicyStatementTrust``), made once per mapping.
    private func judge(of context: PolicyContext) -> any StatementJudge {
        let mapping = context.mapping
        if let known = judges[mapping.name] { return known }
        // The refusal is wrapped in a PolicyError that names the mapping and the policy already.
        let judge = session.statementTrust.judge(for: "the policy (mapping file \(model.file))")
        judges[mapping.name] = judge
        return judge
    }

    /// Runs one stage, naming the mapping, the policy, the stage and the row in any error.
    /// A row-local policy's calls are checked (``RowLocalityCheck``), for `row` when given.
    private func stage(_ name: String, _ context: PolicyContext, _ policy: any MigrationPolicy, row source: SourceRow? = nil, instancePass: Bool = false,
                       _ body: () throws -> Void) throws {
        let row = source?.id
        do {
            if let locality = context.locality {
                if let source { try locality.enter(source, instancePass: instancePass) } else { locality.leave() }
            }
            defer { context.locality?.leave() }
            // Every statement the policy's code sends is judged before it runs (PolicyStatementTrust).
            try session.connection.judging(by: judge(of: context), body)
            try context.locality?.throwViolation()
            try session.afterPolicyCall()
        } catch let error as PolicyError {
            throw error
        } catch {
            let mapping = context.mapping
            var failure = PolicyError(mapping: mapping.name, policy: mapping.policy ?? "\(type(of: policy))", stage: name, sourceRowID: row, underlying: "\(error)")
            failure.sqlState = (error as? PQError)?.sqlState ?? (error as? ConstraintViolation)?.underlying.sqlState
                ?? (error as? UntrustedExpression)?.sqlState ?? (error as? UnjudgedPolicyStatement)?.sqlState
            throw failure
        }
    }
    /// Reads the mapping's source rows (filtered) in id order, `fetchSize` at a time (`firstFetch`
    /// the first time), until `body` returns false: from the cursor ``prepare(_:)`` opened for the
    /// mapping, or else the first rows by a plain query (``streamByQuery(_:related:first:_:)``).
    /// The to-many relationships named in `related` (a policy's `transforms`) come as id lists,
    /// read by the same query (``SourceRow/related(_:)``).
    private func stream(_ mapping: EntityMapping, related: [String], firstFetch: Int? = nil, from declared: SourceCursor? = nil,
                        _ body: (SourceRow) throws -> Bool) throws {
        let connection = session.connection
        guard session.compiler.sourceTable(of: mapping.source) != nil else { return }
        let source: SourceCursor
        if let declared {
            source = declared
        } else if var prepared = preparedCursors[mapping.name], !prepared.isEmpty {
            source = prepared.removeFirst()
            preparedCursors[mapping.name] = prepared
        } else {
            return try streamByQuery(mapping, related: related, first: firstFetch ?? fetchSize, body)
        }
        let cursor = source.name
        session.readingEveryRowOf = source.query.readsEveryRow ? source.query.table : nil
        defer {
            session.readingEveryRowOf = nil
            // Closed with the next round trip.
            try? connection.sendWithNextRoundTrip(Statement("CLOSE \(id: cursor)"))
        }
        var size = firstFetch ?? fetchSize
        while true {
            let batch = try connection.execute("FETCH FORWARD \(int: size) FROM \(id: cursor)")
            if batch.rowCount == 0 { break }
            for row in batch {
                guard try body(SourceRow(id: try row.decode(Int64.self, at: 0), row: row, columns: source.query.columns)) else { return }
            }
            if batch.rowCount < size { break }
            size = fetchSize
        }
    }

    /// The mapping's first `first` source rows, read by one query: a mapping with no more rows (a
    /// tenant's usual table, or a relationship pass after an instance pass that rewrote the rows
    /// out of the mapping's filter) costs no cursor. When there may be more, a cursor over the
    /// rows after them is declared before the policy sees any, so the pass reads every row as of
    /// the same moment, as one cursor would (the policy's writes go out after it); it is read only
    /// if `body` asks for more.
    private func streamByQuery(_ mapping: EntityMapping, related: [String], first: Int, _ body: (SourceRow) throws -> Bool) throws {
        let query = try sourceQuery(mapping, related: related)
        session.readingEveryRowOf = query.readsEveryRow ? query.table : nil
        defer { session.readingEveryRowOf = nil }
        let rows = try session.connection.execute(Statement(inlining: query.sql() + " LIMIT \(int: first)", schema: session.schema))
        var rest: SourceCursor?
        if rows.rowCount == first, first > 0 {
            rest = try declareCursor(mapping, related: related, after: try rows[first - 1].decode(Int64.self, at: 0))
        }
        for row in rows {
            guard try body(SourceRow(id: try row.decode(Int64.self, at: 0), row: row, columns: query.columns)) else {
                if let rest { try session.connection.sendWithNextRoundTrip(Statement("CLOSE \(id: rest.name)")) }
                return
            }
        }
        if let rest { try stream(mapping, related: related, from: rest, body) }
    }

    /// The select list of a mapping's source rows, and where each property is in it.
    private func sourceColumns(_ mapping: EntityMapping, related: [String]) -> (selectList: [SQL], columns: [String: Int]) {
        let compiler = session.compiler
        var columns: [String: Int] = [:]
        var selectList: [SQL] = ["source.id"]
        let source = compiler.source
        for (_, attribute) in source.allAttributes(of: mapping.source) {
            columns[attribute.name] = selectList.count
            selectList.append("source.\(id: compiler.currentColumn(attribute.columnName, of: mapping.source))")
        }
        let sourceTable = compiler.differ.old.table(forEntity: source.rootEntity(of: mapping.source))
        for (declaredBy, relationship) in source.allRelationships(of: mapping.source) {
            guard let column = sourceTable?.column(withOrigin: .relationship(entity: declaredBy, relationship: relationship.name)) else { continue }
            columns[relationship.name] = selectList.count
            selectList.append("source.\(id: compiler.currentColumn(column.name, of: mapping.source))")
        }
        for name in related where columns[name] == nil {
            guard let links = compiler.sourceLinks(of: mapping.source, name) else { continue }
            columns[name] = selectList.count
            selectList.append("pg_catalog.array_to_string(ARRAY(SELECT tm_links.y FROM (\(links)) AS tm_links WHERE tm_links.x = source.id ORDER BY tm_links.y), ',')")
        }
        return (selectList, columns)
    }

    /// A cursor declared over a mapping's source rows.
    private struct SourceCursor {
        let name: String
        let query: SourceQuery
    }

    /// The query of a mapping's source rows (filtered), worked out once per fleet run
    /// (``SourceQueries``).
    private func sourceQuery(_ mapping: EntityMapping, related: [String]) throws -> SourceQuery {
        try sourceQueries.value(for: [mapping.name] + related) {
            let compiler = session.compiler
            guard let table = compiler.sourceTable(of: mapping.source) else { throw PolicyUsageError("no source table for \(mapping.source)") }
            var selection = MappingCompiler.Selection()
            let (selectList, columns) = sourceColumns(mapping, related: related)
            let conditions = try compiler.conditions(of: mapping, into: &selection)
            let whereClause: SQL = conditions.isEmpty ? "" : " WHERE \(conditions, joinedBy: " AND ")"
            return SourceQuery(head: "SELECT \(selectList, joinedBy: ", ") FROM \(selection.from(table))\(whereClause)", isFiltered: !conditions.isEmpty,
                               table: table, readsEveryRow: conditions.isEmpty && selection.joins.isEmpty, columns: columns)
        }
    }

    /// Declares a cursor over the mapping's source rows (filtered), in id order, after the row
    /// `after` when given.
    private func declareCursor(_ mapping: EntityMapping, related: [String], after: Int64? = nil) throws -> SourceCursor {
        let query = try sourceQuery(mapping, related: related)
        cursorCount += 1
        let cursor = "tm_source_\(cursorCount)"
        // Declared with the next round trip: the first FETCH (or, for a cursor opened before a
        // mapping's SQL, that SQL's pipeline, which it precedes).
        try session.connection.sendWithNextRoundTrip(
            Statement(inlining: "DECLARE \(id: cursor) NO SCROLL CURSOR FOR \(query.sql(after: after))", schema: session.schema)
        )
        return SourceCursor(name: cursor, query: query)
    }
}
