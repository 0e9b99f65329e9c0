import EntityModel
import Foundation
import LibPQ
import TypedSQL

/// Runs compiled steps (``MigrationStep``) in one tenant's schema, inside the caller's
/// transaction: the one place where a step's statements, archive work, hooks and policies meet a
/// connection.
///
/// Statements whose results nothing waits for go out as one pipeline (one round trip); the
/// pipeline is cut only where something must happen between them: the archive's copies, a hook,
/// a mapping's policy, or a closing stage that names the row breaking a constraint.
public struct StepExecutor {
    /// What a run may do beyond the plan itself.
    public struct Options: Sendable, Hashable {
        /// Consent to lose what the plan or the tenant's data says is lost.
        public var allowDestructive: Bool
        /// Copy what each step destroys or overwrites into the tenant's archive first, and restore
        /// what a reversed step archived (`--no-archive` turns the copies off).
        public var archives: Bool
        /// Archive a dropped column's values only in the rows where the step's way back would not
        /// give them back (``WayBackProof``). Off, every value is archived.
        public var provesWayBack: Bool
        /// The steps run in an online migration, whose catch-up rounds migrate changed rows again
        /// after a proof was made: only proofs that read nothing but the row itself and rows its
        /// step makes per distinct key are kept (catch-up migrates every row of a key again when
        /// that key's row changes); the other columns are archived in every row.
        public var online: Bool

        public init(allowDestructive: Bool = false, archives: Bool = true, provesWayBack: Bool = true, online: Bool = false) {
            self.allowDestructive = allowDestructive
            self.archives = archives
            self.provesWayBack = provesWayBack
            self.online = online
        }

        /// What of `step`'s archive plan a run with these options uses on `connection`: only the
        /// proofs PostgreSQL vouches for (``WayBackTrust``, asked once per step), before the step
        /// changes anything.
        func archivePlan(of step: MigrationStep, learned: StepMemory, on connection: Connection) throws -> ArchivePlan {
            let plan = archivePlan(of: step)
            guard archives, !plan.proofs.isEmpty else { return plan }
            let trusted = try learned.trustedProofs(of: step.archivePlan, on: connection).trusted
            return plan.keepingProofs { trusted.contains($0.table) }
        }

        /// What of `step`'s archive plan a run with these options uses.
        func archivePlan(of step: MigrationStep) -> ArchivePlan {
            // (Online, catch-up could not keep what an archived link pointed at current: links go back by id.)
            let plan = online ? step.archivePlan.withoutLinkTargets() : step.archivePlan
            guard provesWayBack else { return plan.keepingProofs { _ in false } }
            guard online else { return plan }
            let followed = step.tablesMadePerKey
            return plan.keepingProofs { proof in
                proof.reads.map { $0.subtracting(followed).count <= 1 && $0.subtracting(followed).allSatisfy { $0 == proof.survivor } } ?? false
            }
        }
    }

    /// The tenant's schema.
    public let schema: String
    /// The tenant's migration transaction.
    public let connection: Connection
    public let options: Options
    /// What is known of the tenant's archive, shared by every step this executor runs (and by the
    /// executors of one migration that share it): each step then asks the server at most once.
    public var archive = ArchivePresence()
    /// What the run learns as its tenants run the same steps (its policies' source queries and
    /// relationship passes, the tables they took ids from), shared by its tenants' executors
    /// (nil: each step works everything out afresh).
    public var memory: RunMemory?
    /// The enum types earlier steps of this executor added values to (``AddedEnumValues``).
    public var addedEnumValues = AddedEnumValues()
    /// How the step's tables are named in ``schema``: the model's own (offline, and a shadow in a
    /// schema of its own), or ``TableNaming/citusShadow`` for a shadow built next to the live tables
    /// in the tenant's schema (Citus). Every statement the step and what it calls render for the
    /// schema spells its names so (``TableNaming/rendering(_:in:_:)``).
    public var naming: TableNaming = .model

    public init(schema: String, connection: Connection, options: Options = Options()) {
        self.schema = schema
        self.connection = connection
        self.options = options
    }

    /// Runs every step of `plan`, in order.
    public func run(_ plan: MigrationPlan) throws -> StepStatistics {
        try plan.steps.reduce(StepStatistics()) { total, step in total + (try run(step)) }
    }

    /// Runs one step. Without consent, a data-dependent loss that finds rows fails it
    /// (``UnconsentedLoss``). With the archive, what it destroys or overwrites is archived first,
    /// and what its reverse archived is restored after its normal work, before its `didMigrate` hook.
    public func run(_ step: MigrationStep) throws -> StepStatistics {
        try TableNaming.rendering(naming, in: schema) { try runNamed(step) }
    }

    /// ``run(_:)``, inside its naming.
    private func runNamed(_ step: MigrationStep) throws -> StepStatistics {
        let started = ContinuousClock.now
        let previousLogger = connection.logger
        connection.logger[metadataKey: "step"] = "\(step.source.name) → \(step.destination.name)"
        defer { connection.logger = previousLogger }
        // The model's expressions resolve to trusted objects only, before any DDL runs (ExpressionTrust).
        for version in step.versions.dropFirst() { try ExpressionTrust(version: version).check(on: connection) }
        // Where the server cannot rename a foreign key or check (Citus), it keeps its name.
        let compiled = try connection.capabilities.renamesForeignKeysAndChecks ? step.program : step.program.keepingConstraintNames()
        // An adopted tenant's own names of the indexes and constraints the step drops or renames (AdoptedNames).
        let program = compiled.addressing(try adoptedNames(of: compiled, in: step))
        // A value an earlier step of the transaction added could not be used in this one (55P04).
        let rebuilt = try addedEnumValues.rebuild(as: step.source.relationalSchema(), schema: schema, on: connection)
        let learned = memory?.memory(of: step) ?? StepMemory()
        let archive = StepArchive(plan: try options.archivePlan(of: step, learned: learned, on: connection), schema: schema, connection: connection,
                                  copies: options.archives, presence: self.archive, notesCopiedRows: step.isPolicyStep, learned: learned)
        let archiving = options.archives && (archive.plan.archivesSomething || step.isPolicyStep) ? archive : nil
        var batch = Batch(schema: schema, connection: connection)
        // Columns whose way back proves what it gives back are dropped once they were compared.
        let provedDrops = Set(archiving?.plan.provedDrops ?? [])
        let closing = program.closing.filter { !provedDrops.contains($0.operation) }
        // The judge of both hooks' statements, its verdicts kept for the step.
        let hookTrust = PolicyStatementTrust(schema: schema)

        try archive.checkRestorable()
        try SequencePositionCheck(schema: schema, step: "\(step.source.name) → \(step.destination.name)")
            .run(program.operations.compactMap { if case let .sequenceChange(change) = $0 { change } else { nil } }, on: connection)
        try archiving?.beforeStep()
        batch.add(program.schemaChanges)
        if archiving != nil || step.hooks?.willMigrate != nil {
            try batch.send()
            try archiving?.afterSchemaChanges()
            try runHook(\.willMigrate, "willMigrate", of: step, trust: hookTrust)
        }
        batch.add(program.dataMoves)
        if let mapped = program.mapped {
            try batch.send()
            // The mappings' expressions resolve to trusted objects only, before they run (MappingTrust).
            try learned.requireTrustedMappings(mapped, inSchema: schema, on: connection)
            let policies = try runMappings(program, mapped, step: step, archive: archive, learned: learned, statistics: &batch.statistics)
            let losses = archiving == nil ? mapped.dataDependentLosses : []
            try DataDependentLossCheck(losses: losses, differ: mapped.compiler.differ, schema: schema, step: "\(step.source.name) → \(step.destination.name)")
                .run(on: connection, allowDestructive: options.allowDestructive, logger: connection.logger)
            try ValidationStage(destination: mapped.compiler.differ.new, schema: schema).run(closing, on: connection, statistics: &batch.statistics)
            try policies?.finish()
            batch.statistics.rowsAffected += policies?.session.rowsWritten ?? 0
        } else if closing.contains(where: \.addsRowConstraint) {
            // A check or unique constraint the model adds: a row that breaks it is named (issue 34).
            try batch.send()
            try ValidationStage(destination: step.destination.relationalSchema(), schema: schema).run(closing, on: connection, statistics: &batch.statistics)
        } else {
            batch.add(closing)
            try batch.send()
        }
        // Rows made anew and the links into them are what a way back reads through a link: they
        // go back with their ids before the way back's proofs look at the step's result.
        addedEnumValues.note(step)
        try archive.restoreMadeAnew(enumsWait: !addedEnumValues.types.isDisjoint(with: archive.enumTypesRestored()))
        try archiving?.afterClosing()
        for statement in program.closing.filter({ provedDrops.contains($0.operation) }).mergingAlterTables() {
            try connection.sendWithNextRoundTrip(Statement(statement.sql, schema: schema))
            batch.statistics.statements += 1
        }
        // What the step gives back is part of what it leaves: the archive notes what this step left
        // in a row once the reverse pairs' values are back in it, so that the next way back finds
        // the row as noted (else it would count the values given back here as the app's changes).
        let rebuiltForRestore = try addedEnumValues.rebuild(archive.enumTypesRestored(), as: step.destination.relationalSchema(), schema: schema, on: connection)
        let restored = try archive.restore()
        batch.statistics.statements += rebuilt + rebuiltForRestore
        batch.statistics.rowsAffected += restored
        batch.statistics.restoredEntries += restored
        batch.statistics.supersededEntries += archive.supersededCount
        batch.statistics.linksRestoredByTarget += archive.linksRestoredByTarget
        batch.statistics.recordedWayBacks += archive.recordedWayBacks
        var withheld = 0
        if archiving != nil, options.archives {
            let proved = archive.plan.items.filter(\.proved).count
            // (A column archived in every row, with what the way back derives, is not counted as proved.)
            batch.statistics.provedColumns += archive.plan.items.filter { $0.proved && $0.spares }.count
            withheld = options.archivePlan(of: step).items.filter(\.proved).count - proved
            batch.statistics.withheldProofs += withheld
        }
        try archiving?.afterStep()
        if withheld > 0 {
            try archive.noteWithheldProofs(of: options.archivePlan(of: step), reasons: learned.trustedProofs(of: step.archivePlan, on: connection).withheld)
        }
        for finding in archive.findings { batch.statistics.findings.add(finding) }
        try archive.requireRestoredValues()
        try archive.narrowRestoredValues()
        if step.direction == .down { try restoreColumnOrder(after: step) }
        try runHook(\.didMigrate, "didMigrate", of: step, trust: hookTrust)
        batch.statistics.milliseconds = (ContinuousClock.now - started).inMilliseconds
        return batch.statistics
    }

    /// The tenant's names of the indexes and constraints `step`'s `program` addresses by name, read in one
    /// catalog query where it addresses any; none in an online run's shadow or delta (in a schema
    /// of the tool's own, `_tm_…`, or beside the live tables under ``TableNaming/citusShadow``),
    /// which the run made from the model.
    private func adoptedNames(of program: StepProgram, in step: MigrationStep) throws -> AdoptedNames {
        let operations = program.operations
        guard naming == .model, !SQLName.isToolName(schema), operations.contains(where: { $0.addressedName != nil }) else { return AdoptedNames() }
        let source = step.source.relationalSchema()
        let objects = AdoptedNames.addressed(by: operations, in: source)
        return try AdoptedNames.resolve(objects, source: source, schema: schema, on: connection)
    }

    /// Both passes of a mapped step's entity mappings: every mapping creates its instances, then
    /// every mapping sets its relationships; each pass runs the declarative SQL, then the policy.
    /// Returns the policy runner, for the validation stage, when a mapping has a policy.
    private func runMappings(
        _ program: StepProgram, _ mapped: StepProgram.Mapped, step: MigrationStep, archive: StepArchive?, learned: StepMemory,
        statistics: inout StepStatistics
    ) throws -> PolicyExecutor? {
        var policies: PolicyExecutor?
        if step.isPolicyStep {
            // Online, the steps run on the shadow or a round's delta: schemas of the run's own that
            // the app cannot use, so the step's transaction holds their tables alone as offline.
            let exclusive = try connection.capabilities.holdsPolicyTablesAlone
            let session = PolicySession(schema: schema, connection: connection, compiler: mapped.compiler, archive: archive, logger: connection.logger,
                                        exclusive: exclusive, createdTables: program.createdTables, ownTablesTaken: learned.ownTablesTaken)
            policies = PolicyExecutor(model: mapped.model, session: session, relationshipPasses: memory?.relationshipPasses, sourceQueries: learned.sourceQueries,
                                    checksLocality: options.online)
        }
        var batch = Batch(schema: schema, connection: connection)
        for compiled in program.mappings {
            try policies?.prepare(compiled.mapping)
            batch.add(compiled.createInstances, movesData: true)
            try batch.send()
            if let policies {
                switch compiled.ids {
                case .inPlace:
                    policies.session.declarativeOffsets[compiled.mapping.name] = 0
                case let .offset(setting):
                    // A policy finds a declarative mapping's rows by their offset from its source rows.
                    policies.session.declarativeOffsets[compiled.mapping.name] = try connection
                        .execute("SELECT pg_catalog.current_setting(\(setting))::bigint", schema: schema).first?.decode(Int64.self, at: 0)
                case .madeByPolicy, .perKey:
                    // A policy finds a distinct mapping's rows by their key, not by a source row.
                    break
                }
                try policies.createInstances(for: compiled.mapping)
            }
        }
        for compiled in program.mappings {
            batch.add(compiled.createRelationships, movesData: true)
            try batch.send()
            try policies?.createRelationships(for: compiled.mapping)
        }
        batch.add(program.mappingsTearDown, movesData: false)
        try batch.send()
        // Every cursor is closed now: the indexes a policy's updates set aside are built again.
        batch.statistics.statements += try policies?.session.indexesSetAside?.restore() ?? 0
        statistics = statistics + batch.statistics
        return policies
    }

    /// A rollback re-adds columns at the end of their tables: small tables get their model order
    /// back (``ColumnOrder``).
    private func restoreColumnOrder(after step: MigrationStep) throws {
        var tables: [String] = []
        for case let .addColumn(table, _) in step.program.operations where !tables.contains(table) { tables.append(table) }
        let destination = step.destination.relationalSchema()
        for name in tables {
            guard let table = destination.table(named: name) else { continue }
            try ColumnOrder(table: table, schema: schema, connection: connection).restore()
        }
    }

    /// Runs a step hook, judging its statements with `hookTrust` (one per step, for both hooks).
    private func runHook(_ hook: KeyPath<StepHooks, (@Sendable (PolicyConnection, String) throws -> Void)?>, _ name: String, of step: MigrationStep,
                         trust hookTrust: PolicyStatementTrust) throws {
        guard let body = step.hooks?[keyPath: hook] else { return }
        let stepName = "\(step.source.name) → \(step.destination.name)"
        do {
            // Every statement the hook sends is judged before it runs, as a policy's (PolicyStatementTrust);
            // a refusal is wrapped in a StepHookError, which names the hook and the step.
            try connection.judging(by: hookTrust.hookJudge(for: "the hook")) { try body(connection, schema) }
        } catch {
            throw StepHookError(hook: name, step: stepName, underlying: error)
        }
    }

    /// Statements waiting to go out together in one pipeline, and what the sent ones did.
    private struct Batch {
        let schema: String
        let connection: Connection
        private var pending: [(sql: SQL, movesData: Bool)] = []
        var statistics = StepStatistics()

        init(schema: String, connection: Connection) {
            self.schema = schema
            self.connection = connection
        }

        mutating func add(_ statements: [StepProgram.Statement]) {
            pending += statements.mergingAlterTables().map { ($0.sql, $0.movesData) }
        }

        mutating func add(_ statements: [SQL], movesData: Bool) {
            pending += statements.map { ($0, movesData) }
        }

        /// Sends what is pending as one pipeline; a failing statement aborts it and the transaction.
        mutating func send() throws {
            guard !pending.isEmpty else { return }
            let statements = pending
            pending = []
            let results = try connection.pipeline(statements.map(\.sql), schema: schema)
            statistics.statements += statements.count
            for (result, statement) in zip(results, statements) where statement.movesData { statistics.rowsAffected += result.affectedRows }
        }
    }
}
