import EntityModel
import Logging

/// Plans migrations between any two versions of a family, in either direction, along its ordered
/// list of versions (ALIterativeMigrator).
///
/// Each adjacent pair uses the family's mapping for exactly that pair and direction if there is one,
/// and is inferred from the model difference otherwise. Consecutive inferred steps are fused into
/// one change set where that is equivalent, so a tenant that skips versions is altered once.
public struct MigrationPlanner: Sendable {
    public let family: ModelFamily
    private let mappings: [PairKey: MappingModel]
    /// Stage hooks by step; a hooked step is never fused with its neighbours.
    private let registry: PolicyRegistry
    /// Where each planning is logged (debug: `planned v1 → v2: 1 step`).
    private let logger: Logger

    struct PairKey: Hashable { let source: String, destination: String }

    public init(family: ModelFamily, mappings: [MappingModel] = [], hooks registry: PolicyRegistry = PolicyRegistry(),
                logger: Logger = Logger(label: "MigrationPlanner")) {
        self.family = family
        self.registry = registry
        self.logger = logger
        var byPair: [PairKey: MappingModel] = [:]
        for mapping in mappings { byPair[PairKey(source: mapping.sourceVersion, destination: mapping.destinationVersion)] = mapping }
        self.mappings = byPair
    }

    /// The mapping for exactly this pair and direction, if the family has one.
    public func mapping(from source: String, to destination: String) -> MappingModel? {
        mappings[PairKey(source: source, destination: destination)]
    }

    /// Plans and compiles the path from `source` to `destination`.
    ///
    /// - Throws: ``UnknownVersion`` for a version the family does not have; ``PlanningError`` naming
    ///   the first pair that can be neither mapped nor inferred, or whose mapping cannot be compiled.
    public func plan(from source: String, to destination: String) throws -> MigrationPlan {
        let path = try family.path(from: source, to: destination)
        var reverseAccounts: [String: StepAccount?] = [:]
        func context(_ versions: [ModelVersion], pairAccounts: [StepAccount] = []) -> MigrationStep.ArchiveContext {
            let pairs = zip(versions, versions.dropFirst()).map { VersionPair(source: $0, destination: $1, direction: path.direction) }
            return .init(family: family, pairAccounts: pairAccounts, reverseAccounts: pairs.map { pair in
                let key = pair.destination.name + ">" + pair.source.name
                if let known = reverseAccounts[key] { return known }
                let account = reverseAccount(of: pair)
                reverseAccounts[key] = account
                return account
            }, wayBack: pairs.count == 1 ? mapping(from: pairs[0].destination.name, to: pairs[0].source.name) : nil,
               wayBackHooked: pairs.count == 1 && registry.hooks(family: family.name, from: pairs[0].destination.name, to: pairs[0].source.name) != nil)
        }
        var steps: [MigrationStep] = []
        var pending: [ModelVersion] = []           // versions of the inferred run being fused
        var pendingSteps: [InferredChanges] = []   // their single steps, if fusion is refused

        func hooks(_ pair: VersionPair) -> StepHooks? {
            registry.hooks(family: family.name, from: pair.source.name, to: pair.destination.name)
        }
        func flushInferred() throws {
            defer { pending = []; pendingSteps = [] }
            guard pending.count >= 2 else { return }
            let run = VersionPath(versions: pending, direction: path.direction)
            let archive = context(pending, pairAccounts: pendingSteps.map(\.account))
            if pendingSteps.count > 1, !run.pairs.contains(where: { hooks($0) != nil }), let fused = try? InferredChanges.fuse(run),
               fused.isEquivalentFusion(of: pendingSteps),
               ArchivePlan.restoresAllowFusion(of: pendingSteps, direction: path.direction, reverseAccounts: archive.reverseAccounts),
               // (A pair whose way back overwrites what it carries archives that on its own.)
               path.direction == .up || !zip(pendingSteps, archive.reverseAccounts).contains(where: { changes, reverse in reverse.map(changes.account.carriesWhatIsOverwritten) ?? false }),
               !zip(run.pairs, pendingSteps).contains(where: { provesByWayBack($0, $1) }),
               let step = try? MigrationStep(versions: pending, direction: path.direction, kind: .inferred(fused), archive: archive) {
                steps.append(step)
                return
            }
            for (pair, changes) in zip(run.pairs, pendingSteps) {
                steps.append(try MigrationStep(versions: [pair.source, pair.destination], direction: path.direction,
                                               kind: .inferred(changes), hooks: hooks(pair), archive: context([pair.source, pair.destination])))
            }
        }

        for pair in path.pairs {
            if let mapping = mapping(from: pair.source.name, to: pair.destination.name) {
                try flushInferred()
                steps.append(try MigrationStep(versions: [pair.source, pair.destination], direction: path.direction,
                                               kind: .mapped(mapping), hooks: hooks(pair), archive: context([pair.source, pair.destination])))
                continue
            }
            let changes = try InferredChanges.infer(pair)
            if pending.isEmpty { pending = [pair.source] }
            pending.append(pair.destination)
            pendingSteps.append(changes)
        }
        try flushInferred()
        logger.debug("planned \(source) → \(destination): \(steps.count) step\(steps.count == 1 ? "" : "s")")
        return MigrationPlan(family: family.name, path: path, steps: steps)
    }

    /// Whether the single step of `pair` (inferred as `changes`) proves, by the family's mapping
    /// model for its way back, what that gives back of a column it drops (``WayBackProof``). Such a
    /// pair is never fused with its neighbours: only a single step proves, and only a proof's
    /// entries record what the way back derived (from the row or from other rows), so that an app
    /// change to what it reads wins at the way back (issue 30, class 5) and the way back can be
    /// checked against what the way up recorded of it.
    func provesByWayBack(_ pair: VersionPair, _ changes: InferredChanges) -> Bool {
        guard let wayBack = mapping(from: pair.destination.name, to: pair.source.name) else { return false }
        return !WayBackProof.proofs(of: changes.account, from: pair.source, to: pair.destination, wayBack: wayBack).isEmpty
    }

    /// The account of `pair` crossed the other way: what the way a step undoes did (and archived).
    /// Nil when that way cannot be planned (then nothing can have been archived on it).
    func reverseAccount(of pair: VersionPair) -> StepAccount? {
        let reverse = pair.reversed
        if let model = mapping(from: reverse.source.name, to: reverse.destination.name) {
            return try? model.account(from: reverse.source, to: reverse.destination)
        }
        return try? InferredChanges.infer(reverse).account
    }

    /// How one adjacent pair, in one direction, would migrate.
    public struct PairCheck: Sendable, CustomStringConvertible {
        public enum Resolution: Sendable {
            /// Mapped by a mapping model; what its account destroys, and what it may destroy depending on the data.
            case mapped(origin: String, destructive: [DestructiveChange], dataDependent: [DestructiveChange])
            case inferred(destructive: [DestructiveChange])
            case impossible(reasons: [String])
        }
        public let source: String
        public let destination: String
        public let resolution: Resolution
        /// The step the pair was planned as; nil when it is impossible. (What `check` lists of it
        /// comes from this step: nothing plans the pair again.)
        public let step: MigrationStep?

        public var isPossible: Bool { if case .impossible = resolution { return false } else { return true } }

        public var description: String {
            switch resolution {
            case let .mapped(origin, destructive, dataDependent):
                return "\(source) → \(destination): mapped (\(origin))" + Self.losses(destructive, dataDependent)
            case let .inferred(destructive):
                return "\(source) → \(destination): inferred" + Self.losses(destructive, [])
            case let .impossible(reasons): return "\(source) → \(destination): IMPOSSIBLE\n" + reasons.map { "    - \($0)" }.joined(separator: "\n")
            }
        }

        private static func losses(_ destructive: [DestructiveChange], _ dataDependent: [DestructiveChange]) -> String {
            (destructive.isEmpty ? "" : " (destructive: \(destructive.map(\.detail).joined(separator: "; ")))")
                + (dataDependent.isEmpty ? "" : " (may lose, depending on the data: \(dataDependent.map(\.detail).joined(separator: "; ")))")
        }
    }

    /// Checks every adjacent pair of the family in both directions, offline (`tenant-migrate check`).
    public func checkFamily() -> [PairCheck] {
        family.adjacentPairs.flatMap { [$0, $0.reversed] }.map { pair in
            let (from, to) = (pair.source.name, pair.destination.name)
            do {
                let step = try plan(from: from, to: to).steps[0]
                switch step.kind {
                case let .mapped(model):
                    return PairCheck(source: from, destination: to, resolution: .mapped(
                        origin: model.file, destructive: step.account.destructiveChanges, dataDependent: step.account.dataDependentLosses), step: step)
                case .inferred:
                    return PairCheck(source: from, destination: to, resolution: .inferred(destructive: step.destructiveChanges), step: step)
                }
            } catch let PlanningError.stepNotPossible(_, _, reasons), let PlanningError.mappingLeavesRequiredValuesEmpty(_, _, _, reasons),
                    let PlanningError.mappedStepNotPossible(_, _, _, _, reasons) {
                return PairCheck(source: from, destination: to, resolution: .impossible(reasons: reasons), step: nil)
            } catch {
                return PairCheck(source: from, destination: to, resolution: .impossible(reasons: ["\(error)"]), step: nil)
            }
        }
    }
}
