import LibPQ

/// Values worked out once and shared by the tenants of a fleet run (a run's plans, its policies'
/// source queries, an archive plan's copies): each made the first time a tenant asks for it. Two
/// tenants asking at once may both make it; the values are the same, so either is kept.
package final class Memo<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let values = Locked<[Key: Value]>([:])

    package init() {}

    /// How many values it holds.
    package var count: Int { values.withLock(\.count) }

    /// The value under `key`, made by `make` the first time.
    package func value(for key: Key, make: () throws -> Value) rethrows -> Value {
        if let known = values.withLock({ $0[key] }) { return known }
        let value = try make()
        values.withLock { $0[key] = value }
        return value
    }
}
