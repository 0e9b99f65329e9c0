import EntityModel
import LibPQ
import TypedSQL

/// One step of a plan, compiled: a mapping model between two adjacent versions, or an inferred
/// change set covering one or more adjacent versions (fused).
///
/// A step is built once, when the plan is made, and holds everything it needs to run in any
/// tenant: its account, its statements as typed ``SQL`` by stage, what it archives, and its hooks
/// and policies. A step that cannot be compiled is never made: planning throws
/// ``PlanningError/cannotCompile(from:to:file:reason:)``.
public struct MigrationStep: Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        case inferred(InferredChanges)
        case mapped(MappingModel)
    }

    /// The versions this step walks through, first to last (two for a single step, more when fused).
    public let versions: [ModelVersion]
    /// Which way the step moves.
    public let direction: MigrationDirection
    public let kind: Kind
    /// Swift code registered for this family's pair, run after the step's schema changes and
    /// after its validation (never set on fused steps: a hooked pair is not fused).
    public var hooks: StepHooks?
    /// Where every source column, link and row set goes in this step.
    public let account: StepAccount
    /// What the step runs, in order, for any tenant.
    var program: StepProgram
    /// What the step copies into the tenant's archive before it destroys or overwrites it.
    let archivePlan: ArchivePlan

    /// Compiles a step.
    ///
    /// - Throws: ``PlanningError`` when the step can be neither inferred nor compiled.
    init(versions: [ModelVersion], direction: MigrationDirection, kind: Kind, hooks: StepHooks? = nil, archive context: ArchiveContext = ArchiveContext()) throws {
        self.versions = versions
        self.direction = direction
        self.kind = kind
        self.hooks = hooks
        var account: StepAccount
        switch kind {
        case let .inferred(changes):
            account = changes.account
            program = StepProgram(inferred: changes)
        case let .mapped(model):
            // (Before the compile: what it cannot map over keyed entities, said as such.)
            let refusals = Self.mappedKeyRefusals(model, versions: versions)
            if !refusals.isEmpty {
                throw PlanningError.cannotCompile(from: versions.first!.name, to: versions.last!.name, file: model.file, reason: refusals.joined(separator: "; "))
            }
            do {
                (account, program) = try model.compile(from: versions.first!, to: versions.last!)
            } catch let PlanningError.stepNotPossible(from, to, reasons) {
                throw PlanningError.mappedStepNotPossible(from: from, to: to, file: model.file, mappings: model.entityMappings.map(\.name), reasons: reasons)
            } catch let error as PlanningError {
                throw error
            } catch {
                throw PlanningError.cannotCompile(from: versions.first!.name, to: versions.last!.name, file: model.file, reason: "\(error)")
            }
        }
        // A single step proves, by its way back, what that gives back of the columns it drops; a
        // mapped step is itself the way back of its reverse pair, whose entries it compares so.
        var proofs: [WayBackProof] = [], reverseProofs: [WayBackProof] = []
        if versions.count == 2 {
            // (Down only: the way down's rewrite of what a way up carried is the rollback the team
            // declared, which `check --round-trip` reports where it loses; a way up must not rewrite
            // what the app wrote above it.)
            if direction == .down, let wayBack = context.reverseAccounts.first ?? nil { account.noteOverwrittenByWayBack(wayBack) }
            // (A `didMigrate` hook runs after the proof and could change what the way back reads.)
            if let wayBack = context.wayBack, hooks?.didMigrate == nil {
                proofs = WayBackProof.proofs(of: account, from: versions[0], to: versions[1], wayBack: wayBack)
                account.noteWayBack(of: proofs)
            }
            if case let .mapped(model) = kind, let reverse = context.reverseAccounts.first ?? nil {
                reverseProofs = WayBackProof.proofs(of: reverse, from: versions[1], to: versions[0], wayBack: model)
            }
            if let names = account.names, !context.wayBackHooked, let wayBack = context.reverseAccounts.first ?? nil {
                account.noteChangedOnly(ArchivePlan.changedOnly(account: account, names: names, sourceSchema: versions[0].relationalSchema(),
                                                                destinationSchema: versions[1].relationalSchema(), wayBack: wayBack))
            }
        }
        self.account = account
        let restores = ArchivePlan.restores(versions: versions, direction: direction, reverseAccounts: context.reverseAccounts, proofs: reverseProofs)
        if versions.count > 2 {
            guard let plan = ArchivePlan(fused: account, versions: versions, direction: direction, pairAccounts: context.pairAccounts,
                                         restores: restores, family: context.family) else { throw FusionRefused() }
            archivePlan = plan
        } else {
            archivePlan = ArchivePlan(account: account, versions: versions, direction: direction, restores: restores, family: context.family, proofs: proofs)
        }
        let keyRefusals = Self.keyRefusals(archivePlan: archivePlan, versions: versions)
        if !keyRefusals.isEmpty {
            let (from, to) = (versions.first!.name, versions.last!.name)
            if case let .mapped(model) = kind {
                throw PlanningError.mappedStepNotPossible(from: from, to: to, file: model.file, mappings: model.entityMappings.map(\.name), reasons: keyRefusals)
            }
            throw PlanningError.stepNotPossible(from: from, to: to, reasons: keyRefusals)
        }
    }

    /// What the planner knows, around one step, that the step's archive plan needs.
    struct ArchiveContext: Sendable {
        /// The family, to read entries that earlier releases keyed by a fused step's ends.
        var family: ModelFamily?
        /// For a fused step: each pair's own account, in order.
        var pairAccounts: [StepAccount] = []
        /// For each pair the step crosses: the account of that pair crossed the other way (what
        /// the way this step undoes archived), nil where it cannot be planned.
        var reverseAccounts: [StepAccount?] = []
        /// For a single step: the family's mapping model for its pair crossed the other way (its
        /// way back), if there is one.
        var wayBack: MappingModel?
        /// For a single step: whether hooks run when its pair is crossed the other way (Swift code
        /// that may change any value the way back would otherwise carry back as it is).
        var wayBackHooked = false
    }

    /// A fused step archives a value that more than one of its pairs changes: its pairs run one by one.
    struct FusionRefused: Error {}

    public var source: ModelVersion { versions.first! }
    public var destination: ModelVersion { versions.last! }

    /// The adjacent pairs this step crosses, in order.
    public var pairs: [VersionPair] {
        zip(versions, versions.dropFirst()).map { VersionPair(source: $0, destination: $1, direction: direction) }
    }

    /// The mapping model, for a mapped step.
    public var mappingModel: MappingModel? {
        if case let .mapped(model) = kind { return model } else { return nil }
    }

    /// Whether the step runs Swift policies (which may archive values of their own).
    var isPolicyStep: Bool { mappingModel?.entityMappings.contains { $0.policy != nil } ?? false }

    /// Whether several adjacent steps were fused into this one.
    public var isFused: Bool { versions.count > 2 }

    /// What this step destroys: the account's destroyed entries.
    public var destructiveChanges: [DestructiveChange] { account.destructiveChanges }

    public var description: String {
        let path = versions.map(\.name).joined(separator: " → ")
        switch kind {
        case .inferred: return "\(source.name) → \(destination.name): inferred\(isFused ? " (fused: \(path))" : "")"
        case let .mapped(model): return "\(source.name) → \(destination.name): mapped by \(model.file)"
        }
    }

    /// The statements this step runs, in order, for any tenant; a policy's stages appear as comments.
    /// (The columns its way back proves are dropped last, once the archive compared them.)
    public var statements: [SQL] {
        let drops = Set(archivePlan.provedDrops)
        guard !drops.isEmpty else { return program.listing }
        let last = program.closing.filter { drops.contains($0.operation) }.map(\.sql)
        let columns = archivePlan.items.filter { $0.proved && $0.spares }.map { "\($0.table).\($0.column ?? "")" }.joined(separator: ", ")
        let compared = archivePlan.items.filter { $0.proved && !$0.spares }.map { "\($0.table).\($0.column ?? "")" }.joined(separator: ", ")
        let files = Set(archivePlan.proofs.map(\.file)).sorted().joined(separator: ", ")
        var comments: [SQL] = []
        if !columns.isEmpty { comments.append("-- archive: \(comment: columns), in the rows where the way back (\(comment: files)) would not give the value back") }
        if !compared.isEmpty { comments.append("-- archive: \(comment: compared), in every row, with what the way back (\(comment: files)) derives") }
        return program.listing.filter { !last.contains($0) } + comments + last
    }

    /// The SQL this step runs in `schema`.
    public func describe(inSchema schema: String, quoting: some SQLQuoting = .postgreSQL) -> [String] {
        statements.map { $0.text(schema: schema, quoting: quoting) }
    }

    /// Runs the step inside the caller's transaction, with a ``StepExecutor``.
    public func run(inSchema schema: String, on connection: Connection, allowDestructive: Bool = false, archives: Bool = true) throws -> StepStatistics {
        try StepExecutor(schema: schema, connection: connection, options: .init(allowDestructive: allowDestructive, archives: archives)).run(self)
    }
}
