import EntityModel
import TypedSQL

/// A change to a sequence the model lists (`sequences:`), in the catalog only: the sequence's
/// position (the last value drawn) is kept by every change but a drop.
enum SequenceChange: Sendable, Hashable {
    /// `CREATE SEQUENCE`, before the tables, whose defaults may draw from it.
    case create(ModelSequence)
    /// `ALTER SEQUENCE … AS … START WITH … INCREMENT BY … MINVALUE … MAXVALUE … CYCLE … CACHE …`,
    /// of what changed. Bounds that would leave the tenant's position outside are refused first
    /// (``SequencePositionCheck``).
    case alter(from: ModelSequence, to: ModelSequence)
    /// `DROP SEQUENCE`, once no default draws from it.
    case drop(String)
    /// `ALTER SEQUENCE … RENAME TO …`: a `serial` column's sequence, named after its table, when
    /// the table is renamed.
    case rename(from: String, to: String)
    /// The options of a key's own sequence (`key: { …, start:, increment:, … }`): an identity's by
    /// `ALTER TABLE … ALTER COLUMN id SET START WITH … SET INCREMENT BY …`, a `serial`'s by `ALTER
    /// SEQUENCE "<table>_id_seq" …`, of what changed. `from` and `to` are the sequence as a
    /// ``ModelSequence`` named as PostgreSQL names it (for plans and the position check).
    case alterKey(table: String, identity: Bool, from: ModelSequence, to: ModelSequence)
    /// A key that changes between `serial` and an identity (`from`, `to`), or an identity between
    /// `BY DEFAULT` and `ALWAYS`, in the catalog: the new sequence (`sequence`, with the destination's
    /// options, named as PostgreSQL names a key's) continues from the old one's position (or
    /// begins at its start where the old one was never drawn from), and the old one goes.
    case keyGeneration(table: String, from: SurrogateKey.Generation, to: SurrogateKey.Generation, sequence: ModelSequence)

    var statements: [SQL] {
        switch self {
        case let .create(sequence):
            return [sequence.creation]
        case let .alter(old, new):
            let changes = Self.changedOptions(from: old, to: new, type: true)
            return changes.isEmpty ? [] : ["ALTER SEQUENCE \(table: new.name) \(changes, joinedBy: " ")"]
        case let .alterKey(table, identity, old, new):
            let changes = Self.changedOptions(from: old, to: new, type: false)
            if changes.isEmpty { return [] }
            return identity
                ? ["ALTER TABLE \(table: table) ALTER COLUMN \(id: SQLName.primaryKeyColumn) \(changes.map { "SET \($0)" }, joinedBy: " ")"]
                : ["ALTER SEQUENCE \(table: new.name) \(changes, joinedBy: " ")"]
        case let .keyGeneration(table, from, to, sequence):
            return Self.keyGenerationStatements(table: table, from: from, to: to, sequence: sequence)
        case let .drop(name):
            return ["DROP SEQUENCE \(table: name)"]
        case let .rename(from, to):
            return ["ALTER SEQUENCE \(table: from) RENAME TO \(objectName: to)"]
        }
    }

    /// The statements of ``keyGeneration(table:from:to:sequence:)``.
    private static func keyGenerationStatements(table: String, from: SurrogateKey.Generation, to: SurrogateKey.Generation, sequence: ModelSequence) -> [SQL] {
        let id = SQLName.primaryKeyColumn, start = String(sequence.start)
        let keySequence: SQL = "pg_catalog.pg_get_serial_sequence(\(qualifiedNameLiteral: table), \(literal: id))::pg_catalog.regclass"
        let generated: SQL = to == .always ? "ALWAYS" : "BY DEFAULT"
        switch (from, to) {
        case (.serial, .serial):
            return []
        case (.serial, _):
            // The serial's sequence steps aside, since the identity's takes its name.
            let aside = "_tm_old_" + sequence.name.prefix(50)
            return ["ALTER TABLE \(table: table) ALTER COLUMN \(id: id) DROP DEFAULT",
                    "ALTER SEQUENCE \(table: sequence.name) RENAME TO \(objectName: aside)",
                    // (Else pg_get_serial_sequence would still find it.)
                    "ALTER SEQUENCE \(table: aside) OWNED BY NONE",
                    "ALTER TABLE \(table: table) ALTER COLUMN \(id: id) ADD GENERATED \(generated) AS IDENTITY (\(KeySequenceOptions(sequence).clauses))",
                    "SELECT pg_catalog.setval(\(keySequence), CASE WHEN s.is_called THEN s.last_value ELSE \(raw: start) END, s.is_called) FROM \(table: aside) AS s",
                    "DROP SEQUENCE \(table: aside)"]
        case (_, .serial):
            // The serial's sequence is made aside first, to take the identity's position before it goes.
            let made = KeySequenceOptions(sequence).sequence(named: "_tm_new_" + sequence.name.prefix(50), type: sequence.type)
            return [made.creation,
                    "SELECT pg_catalog.setval(\(qualifiedNameLiteral: made.name)::pg_catalog.regclass, coalesce(pg_catalog.pg_sequence_last_value(k.seq), \(raw: start)), "
                        + "pg_catalog.pg_sequence_last_value(k.seq) IS NOT NULL) FROM (SELECT \(keySequence) AS seq) AS k",
                    "ALTER TABLE \(table: table) ALTER COLUMN \(id: id) DROP IDENTITY",
                    "ALTER SEQUENCE \(table: made.name) RENAME TO \(objectName: sequence.name)",
                    "ALTER TABLE \(table: table) ALTER COLUMN \(id: id) SET DEFAULT pg_catalog.nextval(\(qualifiedNameLiteral: sequence.name)::pg_catalog.regclass)",
                    "ALTER SEQUENCE \(table: sequence.name) OWNED BY \(table: table).\(id: id)"]
        default:
            return ["ALTER TABLE \(table: table) ALTER COLUMN \(id: id) SET GENERATED \(generated)"]
        }
    }

    /// The options that differ from `old` to `new`, as `ALTER SEQUENCE` takes them (`START WITH
    /// 100`, `NO MAXVALUE`, `CYCLE`); `AS type` too where `type` is set. The position is never set:
    /// the next value follows the last one drawn.
    private static func changedOptions(from old: ModelSequence, to new: ModelSequence, type: Bool) -> [SQL] {
        var changes: [SQL] = []
        if type, old.type != new.type { changes.append("AS \(raw: new.type.rawValue)") }
        if old.start != new.start { changes.append("START WITH \(int: new.start)") }
        if old.increment != new.increment { changes.append("INCREMENT BY \(int: new.increment)") }
        if old.minValue != new.minValue { changes.append(new.minValue.map { "MINVALUE \(int: $0)" } ?? "NO MINVALUE") }
        if old.maxValue != new.maxValue { changes.append(new.maxValue.map { "MAXVALUE \(int: $0)" } ?? "NO MAXVALUE") }
        if old.cycle != new.cycle { changes.append(new.cycle ? "CYCLE" : "NO CYCLE") }
        if old.cache != new.cache { changes.append("CACHE \(int: new.cache)") }
        return changes
    }

    /// The bounds a tenant's sequence must already be within for this change: the new ones, where
    /// they are narrower than the old (a type narrowed, a `minValue` raised, a `maxValue` lowered);
    /// `keyTable` is the table whose key owns it, for a key's own sequence (found by its column,
    /// since an identity's sequence keeps its first table's name).
    var narrowedBounds: (name: String, keyTable: String?, bounds: ClosedRange<Int64>)? {
        switch self {
        case let .alter(old, new) where new.lowest > old.lowest || new.highest < old.highest:
            return (new.name, nil, new.lowest...new.highest)
        case let .alterKey(table, _, old, new) where new.lowest > old.lowest || new.highest < old.highest:
            return (new.name, table, new.lowest...new.highest)
        default:
            return nil
        }
    }

    /// What it does, in a few words, for plans.
    var summary: String {
        switch self {
        case let .create(sequence): "creating the sequence \(sequence.name)"
        case let .alter(_, new): "changing the sequence \(new.name) (\(new.type.rawValue), start \(new.start), increment \(new.increment)"
            + new.optionKeys.map { ", \($0.key) \($0.value)" }.joined() + ")"
        case let .drop(name): "dropping the sequence \(name)"
        case let .rename(from, to): "renaming the sequence \(from) to \(to)"
        case let .keyGeneration(table, from, to, _): "changing the key \(table).id from \(Self.describe(from)) to \(Self.describe(to)), its position kept"
        case let .alterKey(table, identity, _, new): "changing the \(identity ? "identity" : "serial") sequence of \(table).id (start \(new.start), increment \(new.increment)"
            + new.optionKeys.map { ", \($0.key) \($0.value)" }.joined() + ")"
        }
    }

    /// `serial`, `an identity (BY DEFAULT)`, `an identity (ALWAYS)`.
    private static func describe(_ generation: SurrogateKey.Generation) -> String {
        switch generation {
        case .serial: "serial"
        case .byDefault: "an identity (BY DEFAULT)"
        case .always: "an identity (ALWAYS)"
        }
    }
}
