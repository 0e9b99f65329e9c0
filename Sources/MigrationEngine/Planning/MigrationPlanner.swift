import EntityModel

/// Plans migrations between any two versions of a family, in either direction, along its ordered
/// list of versions (ALIterativeMigrator).
///
/// Each adjacent pair uses the family's mapping for exactly that pair and direction if there is one,
/// and is inferred from the model difference otherwise. Consecutive inferred steps are fused into
/// one change set where that is equivalent, so a tenant that skips versions is altered once.
public struct MigrationPlanner: Sendable {
    public let family: ModelFamily
    private let mappings: [PairKey: any MigrationMapping]
    /// Stage hooks by step; a hooked step is never fused with its neighbours.
    private let registry: PolicyRegistry

    struct PairKey: Hashable { let source: String, destination: String }

    public init(family: ModelFamily, mappings: [any MigrationMapping] = [], hooks registry: PolicyRegistry = PolicyRegistry()) {
        self.family = family
        self.registry = registry
        var byPair: [PairKey: any MigrationMapping] = [:]
        for mapping in mappings { byPair[PairKey(source: mapping.sourceVersion, destination: mapping.destinationVersion)] = mapping }
        self.mappings = byPair
    }

    /// The mapping for exactly this pair and direction, if the family has one.
    public func mapping(from source: String, to destination: String) -> (any MigrationMapping)? {
        mappings[PairKey(source: source, destination: destination)]
    }

    /// Plans the path from `source` to `destination`.
    ///
    /// - Throws: ``PlanningError`` naming the first pair that can be neither mapped nor inferred.
    public func plan(from source: String, to destination: String) throws -> MigrationPlan {
        let start = try index(of: source)
        let end = try index(of: destination)
        let direction: MigrationDirection = start == end ? .none : (start < end ? .up : .down)
        let path = stride(from: start, through: end, by: start <= end ? 1 : -1).map { family.versions[$0] }
        var steps: [MigrationStep] = []
        var pending: [ModelVersion] = []           // versions of the inferred run being fused
        var pendingSteps: [InferredChanges] = []   // their single steps, if fusion is refused

        func flushInferred() throws {
            guard pending.count >= 2 else { pending = []; pendingSteps = []; return }
            let hooked = zip(pending, pending.dropFirst()).contains { registry.hooks(family: family.name, from: $0.name, to: $1.name) != nil }
            if pendingSteps.count > 1, !hooked, let fused = try? InferredChanges.fuse(pending, ascending: direction == .up),
               fused.isEquivalentFusion(of: pendingSteps) {
                steps.append(MigrationStep(versions: pending, kind: .inferred(fused)))
            } else {
                for (index, changes) in pendingSteps.enumerated() {
                    steps.append(MigrationStep(versions: [pending[index], pending[index + 1]], kind: .inferred(changes),
                                               hooks: registry.hooks(family: family.name, from: pending[index].name, to: pending[index + 1].name)))
                }
            }
            pending = []
            pendingSteps = []
        }

        for (from, to) in zip(path, path.dropFirst()) {
            if let mapping = mapping(from: from.name, to: to.name) {
                try flushInferred()
                steps.append(MigrationStep(versions: [from, to], kind: .mapped(mapping), hooks: registry.hooks(family: family.name, from: from.name, to: to.name)))
                continue
            }
            let changes = try InferredChanges.infer(from: from, to: to, ascending: direction == .up)
            if pending.isEmpty { pending = [from] }
            pending.append(to)
            pendingSteps.append(changes)
        }
        try flushInferred()
        return MigrationPlan(family: family.name, source: path.first!, destination: path.last!, direction: direction, steps: steps)
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
        var checks: [PairCheck] = []
        for (older, newer) in zip(family.versions, family.versions.dropFirst()) {
            for (from, to) in [(older, newer), (newer, older)] {
                if let mapping = mapping(from: from.name, to: to.name) {
                    let account = mapping.account(from: from, to: to)
                    checks.append(PairCheck(source: from.name, destination: to.name, resolution: .mapped(
                        origin: mapping.origin, destructive: account.destructiveChanges, dataDependent: account.dataDependentLosses)))
                    continue
                }
                do {
                    let changes = try InferredChanges.infer(from: from, to: to, ascending: from.name == older.name)
                    checks.append(PairCheck(source: from.name, destination: to.name, resolution: .inferred(destructive: changes.destructiveChanges)))
                } catch let PlanningError.stepNotPossible(_, _, reasons) {
                    checks.append(PairCheck(source: from.name, destination: to.name, resolution: .impossible(reasons: reasons)))
                } catch {
                    checks.append(PairCheck(source: from.name, destination: to.name, resolution: .impossible(reasons: ["\(error)"])))
                }
            }
        }
        return checks
    }

    private func index(of version: String) throws -> Int {
        guard let index = family.versions.firstIndex(where: { $0.name == version }) else {
            throw PlanningError.unknownVersion(version, family: family.name, known: family.versionNames)
        }
        return index
    }
}
