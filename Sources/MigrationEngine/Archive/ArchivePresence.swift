import LibPQ

/// What one tenant's migration knows of its archive (`_tm_archive`), shared by its steps, so that
/// no step probes for it with a round trip of its own and none creates it before it has something
/// to keep:
/// - unknown: the first step that needs to know asks the server, once;
/// - absent: nothing to delete or restore, and the archive is created by the first write;
/// - created in this transaction: it holds only what this migration's steps wrote.
public final class ArchivePresence {
    enum State {
        case unknown, absent, existing
        /// Created by this migration; the step pairs it wrote (`from` NUL `to`).
        case created(Set<String>)
    }

    var state: State
    /// Whether default privileges may grant rights on a table created in the tenant's schema (an
    /// archive created then looks for such grants and revokes them).
    let mayHaveDefaultPrivileges: Bool
    /// Whether another role owns the tenant's schema, and so may drop and replace the archive
    /// after it was found to be the migrator's: an existing archive is then locked and checked
    /// again (``TenantArchive/lockOwn(inSchema:mode:on:)``) before its first use.
    let schemaHasOtherOwner: Bool
    /// Whether the archive was locked and checked again (see ``schemaHasOtherOwner``).
    private var lockedOwn = false

    /// `exists`: whether the tenant has an archive (nil: not known, asked when first needed).
    /// `mayHaveDefaultPrivileges`: false only when it is known that no default privileges apply
    /// to tables created in the schema (`pg_default_acl`), so a new archive has no grants to revoke.
    /// `schemaHasOtherOwner`: false only when the migrator is known to own the tenant's schema.
    /// `current`: whether an existing archive is known to have this release's columns (else it is
    /// brought to them, idempotently, before its first use).
    public init(exists: Bool? = nil, mayHaveDefaultPrivileges: Bool = true, schemaHasOtherOwner: Bool = true, current: Bool = false) {
        state = exists.map { $0 ? .existing : .absent } ?? .unknown
        self.mayHaveDefaultPrivileges = mayHaveDefaultPrivileges
        self.schemaHasOtherOwner = schemaHasOtherOwner
        upgraded = current
    }

    /// Whether the archive may hold entries of the step `from` → `to` written before this migration
    /// or by one of its earlier steps (asks the server when not known yet).
    func mayHoldEntries(from: String, to: String, schema: String, on connection: Connection) throws -> Bool {
        switch try resolved(schema: schema, on: connection) {
        case .absent: return false
        case let .created(pairs): return pairs.contains(Self.pair(from, to))
        case .existing, .unknown: return true
        }
    }

    /// Whether the tenant has an archive now: from before this migration, or created by it.
    func exists(schema: String, on connection: Connection) throws -> Bool {
        if case .absent = try resolved(schema: schema, on: connection) { return false }
        return true
    }

    /// Whether the archive existed before this migration (asks the server when not known yet).
    func existedBefore(schema: String, on connection: Connection) throws -> Bool {
        if case .existing = try resolved(schema: schema, on: connection) { return true }
        return false
    }

    /// Creates the archive unless it exists, and notes that step `from` → `to` writes to it.
    func prepareForWrites(from: String, to: String, schema: String, on connection: Connection) throws {
        switch try resolved(schema: schema, on: connection) {
        case .absent, .unknown:
            try TenantArchive.create(inSchema: schema, on: connection, revokingDefaultGrants: mayHaveDefaultPrivileges)
            state = .created([Self.pair(from, to)])
        case var .created(pairs):
            pairs.insert(Self.pair(from, to))
            state = .created(pairs)
        case .existing:
            break
        }
    }

    /// What is known, asked of the server when not known yet. An archive found by the caller, in a
    /// schema another role owns, is locked and checked again first.
    private func resolved(schema: String, on connection: Connection) throws -> State {
        switch state {
        case .unknown:
            let exists = schemaHasOtherOwner
                ? try TenantArchive.lockOwn(inSchema: schema, mode: .rowExclusive, on: connection)
                : try TenantArchive.exists(inSchema: schema, on: connection)
            state = exists ? .existing : .absent
            lockedOwn = true
            if exists { upgraded = try TenantArchive.isCurrent(inSchema: schema, on: connection) }
        case .existing where schemaHasOtherOwner && !lockedOwn:
            state = try TenantArchive.lockOwn(inSchema: schema, mode: .rowExclusive, on: connection) ? .existing : .absent
            lockedOwn = true
        default:
            break
        }
        if case .existing = state, !upgraded {
            // An archive from before this migration may be an earlier release's: once, before its first use.
            upgraded = true
            try TenantArchive.upgrade(inSchema: schema, on: connection)
        }
        return state
    }

    /// Whether this migration brought an existing archive to this release's shape.
    private var upgraded: Bool

    private static func pair(_ from: String, _ to: String) -> String { from + "\u{0}" + to }
}
