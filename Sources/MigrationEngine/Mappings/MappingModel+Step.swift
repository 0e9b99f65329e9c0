import EntityModel
import Foundation
import LibPQ
import Logging

extension MappingModel: MigrationMapping {
    public var origin: String { file }

    /// The in-place step around the mapping: renames and additions before it, drops and new
    /// constraints after it, with the mapping's tables exempt from the inferred rules' limits.
    func differ(from source: ModelVersion, to destination: ModelVersion) throws -> SchemaDiffer {
        var differ = SchemaDiffer(source: source, destination: destination,
                                  correspondence: .adjacent(from: source, to: destination, sourceIsOlder: ascending))
        let destinationSchema = destination.relationalSchema()
        for mapping in entityMappings {
            if let table = destinationSchema.table(forEntity: destination.rootEntity(of: mapping.destination)) {
                differ.mappingFilledTables.insert(table.name)
            }
        }
        try differ.run()
        differ.deferConstraintsOfMappingFilledNewTables()
        return differ
    }

    public func describe(from source: ModelVersion, to destination: ModelVersion, inSchema schema: String, quoting q: some SQLQuoting) -> [String] {
        do {
            let differ = try differ(from: source, to: destination)
            let compiler = MappingCompiler(differ: differ, schema: schema)
            let (before, data, after) = differ.operationsAroundData
            var lines = (before + data).flatMap { $0.sql(inSchema: schema, quoting: q) }
            for mapping in entityMappings {
                lines.append("-- mapping \(mapping.name): \(mapping.source) → \(mapping.destination)\(mapping.filter.map { " where \($0)" } ?? "")")
                lines += try compiler.createInstances(mapping, quoting: q)
                if let policy = mapping.policy { lines.append("-- policy \(policy): createDestinationInstances for each source row (streamed), rows written with COPY") }
            }
            for mapping in entityMappings {
                lines += try compiler.createRelationships(mapping, in: self, quoting: q)
                if let policy = mapping.policy { lines.append("-- policy \(policy): createRelationships for each source row (skipped if it has none)") }
            }
            lines += after.flatMap { $0.sql(inSchema: schema, quoting: q) }
            lines += entityMappings.compactMap { $0.policy.map { "-- policy \($0): validate, end" } }
            return lines
        } catch {
            return ["-- cannot compile \(file): \(error)"]
        }
    }

    public func run(from source: ModelVersion, to destination: ModelVersion, inSchema schema: String, on connection: Connection,
                    allowDestructive: Bool = false, afterSchemaChanges: (() throws -> Void)? = nil) throws -> StepStatistics {
        try run(from: source, to: destination, inSchema: schema, on: connection, allowDestructive: allowDestructive, archive: nil,
                afterSchemaChanges: afterSchemaChanges)
    }

    /// Runs the step; with `archive`, policies can archive values and read the reverse step's,
    /// and data-dependent losses need no consent (the caller archived them before the mappings ran).
    public func run(from source: ModelVersion, to destination: ModelVersion, inSchema schema: String, on connection: Connection,
                    allowDestructive: Bool, archive: StepArchive?, afterSchemaChanges: (() throws -> Void)?) throws -> StepStatistics {
        let differ = try differ(from: source, to: destination)
        let compiler = MappingCompiler(differ: differ, schema: schema)
        var statistics = StepStatistics()
        func execute(_ statements: [String], movesData: Bool) throws {
            for statement in statements {
                let result = try connection.execute(statement)
                statistics.statements += 1
                if movesData { statistics.rowsAffected += result.affectedRows }
            }
        }
        let (before, data, after) = differ.operationsAroundData
        try execute(before.flatMap { $0.sql(inSchema: schema, quoting: connection) }, movesData: false)
        try afterSchemaChanges?()
        try execute(data.flatMap { $0.sql(inSchema: schema, quoting: connection) }, movesData: true)

        let session = PolicySession(schema: schema, connection: connection, compiler: compiler, archive: archive)
        let runner = PolicyRunner(model: self, session: session)
        for mapping in entityMappings {
            try execute(try compiler.createInstances(mapping, quoting: connection), movesData: true)
            if compiler.isInPlace(mapping) {
                session.declarativeOffsets[mapping.name] = 0
            } else if mapping.policy == nil {
                let setting = MappingCompiler.offsetSetting(mapping, quoting: connection)
                session.declarativeOffsets[mapping.name] = try connection.execute("SELECT pg_catalog.current_setting(\(setting))::bigint").first?.decode(Int64.self, at: 0)
            }
            try runner.createInstances(for: mapping)
        }
        for mapping in entityMappings {
            try execute(try compiler.createRelationships(mapping, in: self, quoting: connection), movesData: true)
            try runner.createRelationships(for: mapping)
        }
        // Every mapping and policy ran; before anything old is destroyed, count what would be lost.
        let losses = archive == nil ? try MappingAccountant(model: self, differ: differ).account().dataDependentLosses : []
        try DataDependentLossCheck(losses: losses, differ: differ, schema: schema, step: "\(source.name) → \(destination.name)")
            .run(on: connection, allowDestructive: allowDestructive, logger: connection.logger)
        try ValidationStage(differ: differ, schema: schema).run(after, on: connection, statistics: &statistics)
        try runner.finish()
        statistics.rowsAffected += session.rowsWritten
        return statistics
    }
}

extension SchemaDiffer {
    /// A new table that a mapping fills is created bare — every column nullable, no unique or
    /// check constraints — and those follow once the mappings ran, in the validation stage. So a
    /// required to-one that pass 2 (relationships) sets is not rejected by pass 1's inserts, and
    /// data that breaks a constraint is reported as a ``ConstraintViolation`` naming the entity,
    /// a row and the constraint, as for every other table.
    mutating func deferConstraintsOfMappingFilledNewTables() {
        guard var created = phases[.createTables] else { return }
        for (index, operation) in created.enumerated() {
            guard case var .createTable(table) = operation, mappingFilledTables.contains(table.name) else { continue }
            for (position, column) in table.columns.enumerated()
            where !column.isNullable && column.origin != .primaryKey && column.origin != .discriminator {
                table.columns[position].isNullable = true
                emit(.finishColumns, .setNullable(table: table.name, column: column.name, isNullable: false))
            }
            for unique in table.uniqueConstraints { emit(.addConstraints, .addUnique(table: table.name, unique)) }
            for check in table.checkConstraints { emit(.addConstraints, .addCheck(table: table.name, check)) }
            table.uniqueConstraints = []
            table.checkConstraints = []
            created[index] = .createTable(table)
        }
        phases[.createTables] = created
    }
}
