import EntityModel
import Foundation
import LibPQ
import TypedSQL

/// The archive work of one step in one tenant: before the step destroys or overwrites anything,
/// copy those values into the tenant's archive (``TenantArchive``), set-based, in the step's
/// transaction, as its ``ArchivePlan`` says; at its end, note what it left in their place; and,
/// when the step is the reverse of an earlier one, restore what that one archived
/// (`StepArchive+Restore.swift`). Policies add values of their own with
/// ``PolicyContext/archive(entity:id:attribute:value:)``.
public final class StepArchive {
    let plan: ArchivePlan
    let schema: String
    let connection: Connection
    /// Whether this run copies what the step destroys (`--no-archive` turns it off; restores
    /// happen either way).
    let copies: Bool
    /// The items (and policy-archived columns) this step archived values of.
    private(set) var archivedItems: [ArchivePlan.Item] = []
    /// Values a policy archived, not yet sent: table, column, row id, value.
    private var pending: [(String, String, Int64, String?)] = []
    private var stagingTable: String?
    /// Archived values a reverse step's policy asked for, loaded once per table and column.
    private var loaded: [String: [Int64: String?]] = [:]
    /// The entries this step restores, per pair key: their tables and columns (found at its start).
    var restorable: [ArchivePlan.PairKey: [(table: String, column: String)]] = [:]
    /// How many entries the archive held at the step's start.
    var entryCount = 0
    /// Per pair key, by entry `table.column`: what the way back the archive recorded derives, where
    /// it stands in for this step's own (``RecordedWayBack``).
    var recordedProofs: [ArchivePlan.PairKey: [String: (from: SQL, fingerprint: SQL)]] = [:]
    /// Per pair key, the tables whose way back changed since the way up, where the way up archived
    /// every row (its proof withheld) and the recorded way back cannot be used: their entries are
    /// given back as archived, not compared with what this step derives now.
    var archivedWithoutWayBack: [ArchivePlan.PairKey: Set<String>] = [:]
    /// How many entries of the pairs this step gave back it did not use (the app's change won, or
    /// the row is gone): kept in the archive, marked superseded.
    var supersededCount = 0
    /// Where those were, and where proofs were withheld, by table and column (``ArchiveFinding``).
    var findings: [ArchiveFinding] = []
    /// How many links this step gave back by what their row is (``LinkTarget``).
    var linksRestoredByTarget = 0
    /// How many tables this step gave back by the way back the archive recorded (``RecordedWayBack``).
    var recordedWayBacks = 0
    /// What ``restoreMadeAnew(enumsWait:)`` gave back (values and rows), and per pair key its
    /// entries (`table.column`; `.` for the pair's whole rows), which ``restore()`` then leaves alone.
    var restoredEarly = 0
    var restoredEarlyEntries: [ArchivePlan.PairKey: Set<String>] = [:]
    /// Whether the archive was analyzed in this step (``restore()``).
    var analyzed = false

    /// What the migration knows of the tenant's archive (shared by its steps).
    let presence: ArchivePresence
    /// Whether the step's policies may archive values themselves (a policy step): its copies of
    /// single columns then note which rows they took (``copiedRows``).
    let notesCopiedRows: Bool
    /// The rows each copy of a column took, by `table.column` (source names), once the round trip
    /// that sent it returned: a value a policy archives for one of them is in the archive already,
    /// and is not sent again. Absent for a copy of more than ``copiedRowsNoted`` rows.
    private var copiedRows: [String: Set<Int64>] = [:]
    /// The most rows a copy notes.
    static let copiedRowsNoted = 10_000

    /// What the run learned of the step: its copies' SQL, made once per run.
    let learned: StepMemory

    init(plan: ArchivePlan, schema: String, connection: Connection, copies: Bool = true, presence: ArchivePresence = ArchivePresence(),
         notesCopiedRows: Bool = false, learned: StepMemory = StepMemory()) {
        self.plan = plan
        self.schema = schema
        self.connection = connection
        self.copies = copies
        self.presence = presence
        self.notesCopiedRows = notesCopiedRows
        self.learned = learned
    }

    /// The step's ends (a fused step's first and last version).
    public var from: String { plan.from }
    public var to: String { plan.to }
    var names: ArchiveNames { plan.names }
    var sourceSchema: RelationalSchema { plan.sourceSchema }
    var destinationSchema: RelationalSchema { plan.destinationSchema }

    /// Whether the tenant's schema has an archive (asked once per migration, see ``ArchivePresence``).
    func archiveExists() throws -> Bool {
        try presence.exists(schema: schema, on: connection)
    }

    // MARK: Running

    /// Before the step: removes the earlier entries of every pair the step crosses (it now
    /// archives afresh) but the superseded ones (they stay until pruned or restored), and copies the values a narrowing would change. The archive is created by
    /// the step's first write, so a step that archives nothing leaves a tenant without one as it
    /// was. Its copies are queued: they go out with the step's next statements.
    func beforeStep() throws {
        try prepareForWrites()
        try copySequencePositions()
        try copy(plan.items.filter(\.narrowing))
    }

    /// After the step's renames and new tables and columns, before any data moves: copies every
    /// other item, but those its way back proves (``afterClosing()``).
    func afterSchemaChanges() throws {
        try copy(plan.items.filter { !$0.narrowing && !$0.proved })
    }

    /// Once the step's mappings, policies and closing stage ran, before the columns its way back
    /// proves are dropped (``ArchivePlan/provedDrops``): copies their values in the rows where the
    /// way back would not give them back (``WayBackProof``), queued like every copy.
    func afterClosing() throws {
        let proved = plan.items.filter(\.proved)
        guard !proved.isEmpty else { return }
        try prepareForWrites()
        for sql in learned.provedCopies(of: plan) { try connection.sendWithNextRoundTrip(Statement(sql, schema: schema)) }
        // (A policy may have archived values of these columns already: one item per column.)
        archivedItems.removeAll { item in proved.contains { $0.key == item.key } }
        archivedItems += proved
    }

    /// Creates the archive before the step's first write to it, and (once) deletes what an earlier
    /// run through the same pairs left there, but for superseded entries; neither costs a round
    /// trip of its own.
    private func prepareForWrites() throws {
        guard !isPrepared, plan.archivesSomething || !pending.isEmpty else { return }
        isPrepared = true
        for pair in plan.pairs {
            let earlier = try presence.mayHoldEntries(from: pair.from, to: pair.to, schema: schema, on: connection)
            try presence.prepareForWrites(from: pair.from, to: pair.to, schema: schema, on: connection)
            if earlier {
                try connection.sendWithNextRoundTrip(Statement(
                    "DELETE FROM \(archiveTable) WHERE step_from = $1 AND step_to = $2 AND NOT superseded", schema: schema, [pair.from, pair.to]))
            }
        }
    }

    private var isPrepared = false

    private func copy(_ items: [ArchivePlan.Item]) throws {
        let notes = try notesCopiedRows && connection.capabilities.notesRowsOfCopies
        for item in items {
            let sql = learned.copy(item, of: plan)
            if notes, item.pair == 0, !item.narrowing, !item.proved, let column = item.column {
                // The ids it took come back (the first few thousand): a CTE, so the INSERT still takes every row.
                let noted: SQL = "WITH tm_copied AS (\(sql) RETURNING row_id) SELECT row_id FROM tm_copied LIMIT \(int: Self.copiedRowsNoted + 1)"
                let key = item.table + "." + column
                try connection.sendWithNextRoundTrip(Statement(noted, schema: schema)) { [weak self] result in
                    guard result.rowCount <= Self.copiedRowsNoted else { return }
                    self?.copiedRows[key] = Set(try result.map { try $0.decode(Int64.self, at: 0) })
                }
            } else {
                try connection.sendWithNextRoundTrip(Statement(sql, schema: schema))
            }
            archivedItems.append(item)
        }
    }

    /// Once the step ran and gave back what it restores (``restore()``): sends what policies
    /// archived, and notes, for each archived column, what the step left in its row
    /// (compare-and-restore compares with it): the column's value where it survives, or the values
    /// a mapping derived from it where it was dropped. Of a ``ArchivePlan/Item/changedOnly`` item,
    /// it then drops the entries whose row holds the value it had (``dropUnchanged(_:)``).
    func afterStep() throws {
        try flushPolicyValues(final: true)
        for item in archivedItems where !item.proved {
            // (A proved item's entries hold what the way back derived already.)
            guard let column = item.column, let table = names.survivingTables[item.table] else { continue }
            let left: SQL
            if let surviving = names.survivingColumns[item.table + "." + column] {
                left = "t.\(id: surviving)::text"
            } else if !item.derived.isEmpty {
                left = try jsonObjectText(item.derived.map { ($0, "t.\(id: $0)::text") })
            } else {
                continue
            }
            let pair = plan.pairs[item.pair]
            try connection.sendWithNextRoundTrip(Statement(
                "UPDATE \(archiveTable) AS a SET left_value = \(left), compares = true "
                    + "FROM \(table: table) AS t WHERE a.step_from = $1 AND a.step_to = $2 AND a.table_name = $3 "
                    + "AND a.column_name = $4 AND \(ArchiveRowKey.rowIs("t", of: destinationSchema.table(named: table), entry: "a")) AND NOT a.superseded", schema: schema, [pair.from, pair.to, item.recordedTable, item.recordedColumn ?? ""]))
            try dropUnchanged(item)
        }
    }

    /// The tenant's archive table (``TenantArchive/table``): statements naming it are rendered for ``schema``.
    var archiveTable: SQL { TenantArchive.table }

    /// `jsonb_build_object(key, value, …)::text` of `text` expressions, the fingerprint of what a
    /// step left in a dropped column's row. On Citus, which refuses that STABLE function on columns
    /// in an `UPDATE` (0A000), the same text built by IMMUTABLE functions (``ImmutableJSON``).
    func jsonObjectText(_ members: [(key: String, value: SQL)]) throws -> SQL {
        if try !connection.capabilities.buildsJSONOfColumnsInUpdates { return ImmutableJSON.object(members) }
        return "pg_catalog.jsonb_build_object(\(members.map { "\(literal: $0.key), \($0.value)" as SQL }, joinedBy: ", "))::text"
    }

    // MARK: Policies

    /// Where an entity's attribute is stored in a version's schema.
    static func location(of entity: String, _ attribute: String, in version: ModelVersion, schema: RelationalSchema) throws -> (table: String, column: String) {
        guard version.entity(named: entity) != nil, let table = schema.table(forEntity: version.rootEntity(of: entity)) else {
            throw PolicyUsageError("version \(version.name) has no entity \(entity)")
        }
        if let (declaredBy, _) = version.allAttributes(of: entity).first(where: { $0.attribute.name == attribute }),
           let column = table.column(withOrigin: .attribute(entity: declaredBy, attribute: attribute)) {
            return (table.name, column.name)
        }
        if let (declaredBy, _) = version.allRelationships(of: entity).first(where: { $0.relationship.name == attribute }),
           let column = table.column(withOrigin: .relationship(entity: declaredBy, relationship: attribute)) {
            return (table.name, column.name)
        }
        throw PolicyUsageError("\(entity) in \(version.name) has no attribute or key-holding to-one relationship \"\(attribute)\"")
    }

    /// Buffers one value a policy archives (sent with COPY in batches, applied at the end of the step).
    /// A policy runs in a mapped step, which crosses one pair: its source names are the entry's.
    func archive(table: String, column: String, id: Int64, value: String?) throws {
        guard copies else { return }
        // The step's copy took it already: the archive keeps that one (as the INSERT's NOT EXISTS would).
        if let copied = copiedRows[table + "." + column], copied.contains(id) { return }
        pending.append((table, column, id, value))
        if !archivedItems.contains(where: { $0.table == table && $0.column == column }) {
            archivedItems.append(ArchivePlan.Item(table: table, column: column, rows: nil, narrowing: false))
        }
        if pending.count >= 10_000 { try flushPolicyValues(final: false) }
    }

    private func flushPolicyValues(final: Bool) throws {
        if final, !pending.isEmpty, stagingTable == nil {
            // They all fit in one batch: one statement, queued, with no staging table.
            try prepareForWrites()
            try insertPending()
        }
        if !pending.isEmpty {
            try prepareForWrites()
            let staging = try prepareStaging()
            let rows = pending
            _ = try connection.copyIn("COPY pg_temp.\(id: staging) (table_name, column_name, row_id, value) FROM STDIN") { writer in
                for (table, column, id, value) in rows {
                    writer.append(table)
                    writer.append(column)
                    writer.append(id)
                    writer.append(value)
                    try writer.endRow()
                }
            }
            pending.removeAll(keepingCapacity: true)
        }
        guard final, hasPolicyValues, stagingTable != nil || !insertedPending else { return }
        // A policy runs in a mapped step, which crosses one pair: its entries are that pair's.
        let pair = plan.pairs[0]
        if let stagingTable {
            let staging: SQL = "pg_temp.\(id: stagingTable)"
            try connection.sendWithNextRoundTrip(Statement(
                "INSERT INTO \(archiveTable) (step_from, step_to, table_name, column_name, row_id, value) "
                    + "SELECT DISTINCT ON (s.table_name, s.column_name, s.row_id) $1, $2, s.table_name, s.column_name, s.row_id, s.value FROM \(staging) AS s "
                    + "ORDER BY s.table_name, s.column_name, s.row_id", schema: schema, [pair.from, pair.to]))
        }
        // A value the step archived already (its account names it) is kept once. This works on the
        // archive alone, not joined with the staging table, because Citus cannot join a temporary
        // table with a distributed-schema table (0A000); and with a window rather than a self-join,
        // which the planner may run as a quadratic nested loop on a table it has no statistics for.
        // (An entry that already notes what the step left, a proved copy's, is the one kept.)
        for item in archivedItems where item.pair == 0 {
            let table = item.recordedTable, column = item.recordedColumn ?? ""
            try connection.sendWithNextRoundTrip(Statement(
                "DELETE FROM \(archiveTable) WHERE ctid = ANY (ARRAY(SELECT d.ctid FROM (SELECT ctid, pg_catalog.row_number() OVER "
                    + "(PARTITION BY row_id ORDER BY left_value IS NULL, ctid) AS n FROM \(archiveTable) WHERE step_from = $1 AND step_to = $2 "
                    + "AND table_name = $3 AND column_name = $4 AND NOT superseded) AS d WHERE d.n > 1))", schema: schema, [pair.from, pair.to, table, column]))
        }
        if let stagingTable { try connection.sendWithNextRoundTrip(Statement("DROP TABLE pg_temp.\(id: stagingTable)")) }
        self.stagingTable = nil
    }

    /// The values policies archived, all at once: one `INSERT … SELECT` from arrays, queued. A value
    /// is kept once: the first a policy archived for its row (chosen here), unless the step's own
    /// copies archived the row already (no staging table is involved, so no de-duplication pass is
    /// needed after it).
    private func insertPending() throws {
        hasPolicyValues = true
        insertedPending = true
        var tables = ArrayLiteral(), columns = ArrayLiteral(), ids = ArrayLiteral(), values = ArrayLiteral()
        var seen = Set<PendingKey>()
        for (table, column, id, value) in pending where seen.insert(PendingKey(table: table, column: column, id: id)).inserted {
            tables.append(table)
            columns.append(column)
            ids.append(id)
            values.append(value)
        }
        pending.removeAll(keepingCapacity: true)
        let rows = ArrayLiteral.rows(types: ["text", "text", "bigint", "text"], firstParameter: 3)
        try connection.sendWithNextRoundTrip(Statement(
            "INSERT INTO \(archiveTable) (step_from, step_to, table_name, column_name, row_id, value) "
                + "SELECT $1, $2, s.table_name, s.column_name, s.row_id, s.value FROM \(rows) AS s(table_name, column_name, row_id, value) "
                + "WHERE NOT EXISTS (SELECT FROM \(archiveTable) AS a WHERE a.step_from = $1 AND a.step_to = $2 AND a.table_name = s.table_name "
                + "AND a.column_name = s.column_name AND a.row_id = s.row_id AND NOT a.superseded)",
            schema: schema, binds: [PQBind.text(plan.pairs[0].from), PQBind.text(plan.pairs[0].to), tables.bind, columns.bind, ids.bind, values.bind]))
    }

    /// A value's place in the archive: which row's which column.
    private struct PendingKey: Hashable {
        let table: String
        let column: String
        let id: Int64
    }

    /// Whether policies archived values in this step (then the step's entries are made unique at its end).
    private var hasPolicyValues = false
    /// Whether they went in by ``insertPending()``, unique already.
    private var insertedPending = false

    private func prepareStaging() throws -> String {
        hasPolicyValues = true
        if let stagingTable { return stagingTable }
        let name = "_tm_archive_stage_\(String(UInt32.random(in: .min ... .max), radix: 16))"
        try connection.sendWithNextRoundTrip(Statement("CREATE TEMPORARY TABLE \(id: name) (table_name text, column_name text, row_id bigint, value text) ON COMMIT DROP"))
        stagingTable = name
        return name
    }

    /// The value the up step (this step's reverse) archived for a row, loaded once per column.
    /// `.some(nil)` is an archived NULL; nil means nothing was archived for the row.
    func archived(table: String, column: String, id: Int64) throws -> String?? {
        let key = table + "." + column
        if loaded[key] == nil {
            var values: [Int64: String?] = [:]
            if let key = plan.restores.first?.key, try archiveExists() {
                for row in try connection.execute(
                    "SELECT row_id, value FROM \(archiveTable) WHERE step_from = $1 AND step_to = $2 AND table_name = $3 AND column_name = $4 AND NOT superseded",
                    schema: schema, [key.from, key.to, table, column]) {
                    values[try row.decode(Int64.self, at: 0)] = try row.decode(String?.self, at: 1)
                }
            }
            loaded[key] = values
        }
        return loaded[key]![id]
    }
}
