import EntityModel

extension MappingModel {
    /// The in-place step around the mapping: renames and additions before it, drops and new
    /// constraints after it, with the mapping's tables exempt from the inferred rules' limits.
    func differ(across pair: VersionPair) throws -> SchemaDiffer {
        let differ = try inPlaceDiffer(across: pair)
        let unfilled = unfilledRequiredValues(differ)
        guard unfilled.isEmpty else {
            throw PlanningError.mappingLeavesRequiredValuesEmpty(from: pair.source.name, to: pair.destination.name, file: file, reasons: unfilled)
        }
        return differ
    }

    /// The in-place step around the mapping, without the check of the required values it fills.
    func inPlaceDiffer(across pair: VersionPair) throws -> SchemaDiffer {
        var differ = SchemaDiffer(source: pair.source, destination: pair.destination, correspondence: .adjacent(pair))
        let destinationSchema = pair.destination.relationalSchema()
        for mapping in entityMappings {
            if let table = destinationSchema.table(forEntity: pair.destination.rootEntity(of: mapping.destination)) {
                differ.mappingFilledTables.insert(table.name)
            }
        }
        try differ.run()
        differ.deferConstraintsOfMappingFilledNewTables()
        return differ
    }

    /// The pair this mapping crosses.
    func pair(from source: ModelVersion, to destination: ModelVersion) -> VersionPair {
        VersionPair(source: source, destination: destination, direction: direction)
    }

    /// Compiles the step: its account, and its statements by stage for any tenant.
    ///
    /// - Throws: ``PlanningError/stepNotPossible(from:to:reasons:)`` when the step around the
    ///   mapping cannot be inferred; ``MappingCompileError`` or ``KeyPathError`` when a mapping
    ///   cannot become SQL.
    func compile(from source: ModelVersion, to destination: ModelVersion) throws -> (account: StepAccount, program: StepProgram) {
        let differ = try differ(across: pair(from: source, to: destination))
        let compiler = MappingCompiler(differ: differ)
        let account = try MappingAccountant(model: self, differ: differ).account()
        let mappings = try entityMappings.map { mapping in
            StepProgram.Mapping(
                mapping: mapping,
                createInstances: try compiler.createInstances(mapping),
                createRelationships: try compiler.createRelationships(mapping, in: self),
                ids: try compiler.distinctRows(mapping).map { .perKey($0) }
                    ?? (compiler.isInPlace(mapping) ? .inPlace : (mapping.policy == nil ? .offset(MappingCompiler.offsetSetting(mapping)) : .madeByPolicy))
            )
        }
        let (before, data, after) = differ.operationsAroundData
        let program = StepProgram(
            schemaChanges: before.statements, dataMoves: data.statements, closing: after.statements, validatesClosing: true,
            mappings: mappings, mapped: .init(model: self, compiler: compiler, dataDependentLosses: account.dataDependentLosses)
        )
        return (account, program)
    }

    /// The step's account (see ``MappingAccountant``).
    ///
    /// - Throws: when the step cannot be planned: ``PlanningError`` and compile errors.
    public func account(from source: ModelVersion, to destination: ModelVersion) throws -> StepAccount {
        try MappingAccountant(model: self, differ: differ(across: pair(from: source, to: destination))).account()
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
                if column.defaultValue == nil { columnsOnlyMappingsFill.insert(table.name + "." + column.name) }
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
