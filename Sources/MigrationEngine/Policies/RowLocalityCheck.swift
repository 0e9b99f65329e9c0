/// Checks, as a row-local policy runs online, that it keeps to what ``PolicyLocality/rowLocal(sharedRows:)``
/// allows, so that catch-up can run it again for the changed source rows alone and get what a
/// full run gets:
/// - no SQL of its own (``PolicyContext/connection``, `execute`, source or destination table names);
/// - writes to its source row's destination (in place), to the rows it made for its keys, and to
///   its source row's archive entries and associations only;
/// - a row of a shared entity made only at the first source row (in id order) of its key, every
///   key getting one, so its ids are the keys' ranks, as a distinct mapping's;
/// - lookups keyed by one of its source row's keys, and written only at that key's first row.
///
/// A call that breaks a rule is remembered (most of the context's calls cannot throw) and thrown
/// right after the policy call returns, which fails the tenant's run; nothing is trusted.
final class RowLocalityCheck {
    let policy: String
    let mapping: String
    /// Shared entity → the source attribute that keys it.
    let sharedRows: [String: String]
    /// The attributes that key shared rows (read at every row).
    private let keyAttributes: [String]

    /// The row being migrated, and whether the pass is the instance pass (the only one that may
    /// make shared rows).
    private var current: SourceRow?
    private var instancePass = false
    /// The current row's key values, by attribute, and the attributes it is the first row of.
    private var keys: [String: String] = [:]
    private var firstOf: Set<String> = []
    /// The key values seen so far in the instance pass, by attribute.
    private var seen: [String: Set<String>] = [:]
    /// The shared rows made, by entity: their ids in the order made.
    private var made: [String: [Int64]] = [:]
    /// The rows the current source row made (it may write to them).
    private var madeByCurrent: Set<Int64> = []
    private var violation: String?

    init(policy: String, mapping: String, sharedRows: [String: String]) {
        self.policy = policy
        self.mapping = mapping
        self.sharedRows = sharedRows
        keyAttributes = Set(sharedRows.values).sorted()
    }

    /// The policy is called for `row` (`instancePass`: in `createDestinationInstances`).
    func enter(_ row: SourceRow, instancePass: Bool) throws {
        current = row
        self.instancePass = instancePass
        madeByCurrent = []
        keys = [:]
        firstOf = []
        for attribute in keyAttributes {
            guard let value = try row.string(attribute) else { continue }
            keys[attribute] = value
            if instancePass, seen[attribute, default: []].insert(value).inserted { firstOf.insert(attribute) }
        }
    }

    /// The policy call returned (or a stage without a row begins).
    func leave() { current = nil }

    /// Throws the first rule broken since the last call.
    func throwViolation() throws {
        guard let violation else { return }
        self.violation = nil
        throw PolicyUsageError("policy \(policy) of mapping \(mapping) is row-local (its `locality`), but it \(violation): catch-up could not run it "
            + "again for the changed rows alone. Keep it to its source row, or declare `locality: .readsOtherRows(\"why\")` (its step then runs writes-wait)")
    }

    private func refuse(_ what: String) {
        if violation == nil { violation = what }
    }

    /// SQL of the policy's own, or a table's name to write some.
    func sql(_ what: String) { refuse("uses \(what), which may read or write any row") }

    /// Before a row of `entity` is made: the key it is made for.
    func willInsert(_ entity: String) {
        guard let current else { return refuse("makes a \(entity) row outside a source row's call") }
        guard let attribute = sharedRows[entity] else {
            return refuse("makes a \(entity) row, which is not one of its rows made per key (`sharedRows`), so its id depends on the rows made before it")
        }
        guard instancePass, let key = keys[attribute], firstOf.contains(attribute) else {
            return refuse("makes a \(entity) row at source row \(current.id), which is not the first row of its \(attribute)")
        }
        if made[entity, default: []].count >= seen[attribute, default: []].count {
            refuse("makes a second \(entity) row for the \(attribute) \(key)")
        }
    }

    /// A row of `entity` was made with `id`.
    func didInsert(_ entity: String, id: Int64) {
        made[entity, default: []].append(id)
        madeByCurrent.insert(id)
    }

    /// A lookup of `name` under `key`; `writing` when it remembers a value, `known` whether it has one.
    func lookup(_ name: String, _ key: String, writing: Bool, known: Bool) {
        guard current != nil else { return refuse("uses lookup \(name) outside a source row's call") }
        let attributes = keys.filter { $0.value == key }.map(\.key).sorted()
        guard let attribute = attributes.first else {
            return refuse("uses lookup \(name) under a key that is none of its source row's keys (`sharedRows`' attributes)")
        }
        if writing, known || firstOf.isDisjoint(with: attributes) {
            refuse("writes lookup \(name) under its \(attribute) after that key's first row")
        }
    }

    /// A write to the destination row `id` (an update, a link's source, an archive entry, an association).
    func writes(_ id: Int64, _ what: String) {
        guard let current else { return refuse("\(what) outside a source row's call") }
        if id != current.id && !madeByCurrent.contains(id) { refuse("\(what) of row \(id), which neither is its source row nor a row it made") }
    }

    /// A read of what row `source` was made into.
    func readsDestinations(of source: Int64) {
        guard let current, source == current.id else { return refuse("reads the destinations of another source row (\(source))") }
    }

    /// The instance pass ended: every key got its shared row, at its first row, with ids the
    /// keys' ranks (1, 2, … in the order of their first rows), as catch-up matches them.
    func finishInstancePass() throws {
        for (entity, attribute) in sharedRows.sorted(by: { $0.key < $1.key }) {
            let ids = made[entity] ?? []
            let keys = seen[attribute]?.count ?? 0
            if ids.count != keys {
                refuse("made \(ids.count) \(entity) rows for \(keys) values of \(attribute) (one per key is what catch-up follows)")
            } else if !ids.enumerated().allSatisfy({ $0.element == Int64($0.offset + 1) }) {
                refuse("made \(entity) rows with ids that are not their keys' ranks (1, 2, … in the order of their first rows)")
            }
        }
        try throwViolation()
    }
}
