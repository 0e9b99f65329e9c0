import EntityModel
import TypedSQL

/// What a step gives back for one adjacent pair it crosses: the entries that the pair crossed the
/// other way archived (named as the version this crossing arrives at names them), where they go at
/// the end of the step, and how to tell, at its start, that a row still holds what the way up left
/// (compare-and-restore).
struct PairRestore: Sendable {
    /// The entries' key: the crossed pair, the other way.
    let key: ArchivePlan.PairKey
    /// Which of the step's pairs this is (0: the first one crossed).
    let crossing: Int
    /// The entries' version's tables (whole rows are JSON objects of its columns).
    let entrySchema: RelationalSchema
    /// Entry names → the step's destination names.
    let toEnd: NameTranslation
    /// The step's destination tables.
    let endSchema: RelationalSchema
    /// By entry `table.column`: what the way up left, and where to read it at the step's start.
    let checks: [String: Check]
    /// By entry `table.column`, for the columns this step proved to the way up that it gives back
    /// (``WayBackProof``, this step being that way back): what it derives, read at its start. An
    /// entry the way up copied so holds a fingerprint of it (``WayBackProof/fingerprint(_:)``).
    var proofs: [String: (from: SQL, fingerprint: SQL)] = [:]
    /// By table: what this step derives of the columns the way up proved (``WayBackProof/signature``),
    /// to compare with the way up's marker entry.
    var signatures: [String: String] = [:]
    /// For a single step: the way up it undoes (its account and versions), to prove again by the
    /// way back the archive recorded (``RecordedWayBack``) where the family's has changed.
    var wayUp: WayUp?

    struct WayUp: Sendable {
        let account: StepAccount
        let source: ModelVersion
        let destination: ModelVersion
    }

    /// What the way up left in a row for one archived column: the column itself where it survived,
    /// or the destination columns a mapping derived from it where it was dropped.
    struct Check: Sendable {
        /// The live table at the step's start.
        var table: String
        /// `left_value` is a JSON object of these columns (derived from a dropped column) rather
        /// than the one column's text.
        var derived: Bool
        var columns: [Column]

        struct Column: Sendable {
            /// The column as the way up left it (its name in the version the way up arrived at).
            var key: String
            /// Its type there: the live value is read as that type.
            var type: SQLType
            /// The live column at the step's start, if it is there.
            var live: String?
            /// Entries of pairs this step crosses first that hold the column's value for this
            /// crossing (the nearest first): `(crossing, table, column)`.
            var nearer: [(crossing: Int, table: String, column: String)]
        }
    }
}

extension ArchivePlan {
    /// For each pair a step through `versions` crosses, in order, what it restores.
    ///
    /// - Parameter reverseAccounts: for each pair, the account of that pair crossed the other way
    ///   (what the way this step undoes did), nil where it cannot be planned.
    /// - Parameter proofs: for a single step that is the way back of its reverse pair, what it gives
    ///   back of the columns that pair drops (``WayBackProof``).
    static func restores(versions: [ModelVersion], direction: MigrationDirection, reverseAccounts: [StepAccount?],
                         proofs: [WayBackProof] = []) -> [PairRestore] {
        let count = versions.count - 1
        let back: MigrationDirection = direction == .up ? .down : .up
        // The step's first version's names → each later version's.
        let forward = (0...count).map { NameTranslation(along: Array(versions[0...$0]), direction: direction) }
        return (0..<count).map { crossing in
            let entryVersion = versions[crossing + 1], arrival = versions[crossing]
            let toStart = NameTranslation(along: Array(versions[0...crossing].reversed()), direction: back)
            var checks: [String: PairRestore.Check] = [:]
            if let reverse = reverseAccounts.indices.contains(crossing) ? reverseAccounts[crossing] : nil, let names = reverse.names {
                for table in entryVersion.relationalSchema().tables {
                    guard let left = names.survivingTables[table.name], let liveTable = toStart.table(left),
                          let arrivalTable = arrival.relationalSchema().table(named: left) else { continue }
                    func column(_ name: String) -> PairRestore.Check.Column? {
                        guard let type = arrivalTable.column(named: name)?.type else { return nil }
                        let live = toStart.column(name, of: left)?.column
                        let nearer = live.map { live in
                            (0..<crossing).reversed().compactMap { earlier -> (Int, String, String)? in
                                forward[earlier + 1].column(live, of: liveTable).map { (earlier, $0.table, $0.column) }
                            }
                        } ?? []
                        return .init(key: name, type: type, live: live, nearer: nearer)
                    }
                    for source in table.columns {
                        if let surviving = names.survivingColumns[table.name + "." + source.name] {
                            if let check = column(surviving) { checks[table.name + "." + source.name] = .init(table: liveTable, derived: false, columns: [check]) }
                            continue
                        }
                        var derived: [String] = []
                        for entry in reverse.entries(table: table.name, column: source.name) {
                            for location in entry.derived ?? [] where location.table == left {
                                if let name = location.column, !derived.contains(name) { derived.append(name) }
                            }
                        }
                        let columns = derived.sorted().compactMap(column)
                        if !columns.isEmpty { checks[table.name + "." + source.name] = .init(table: liveTable, derived: true, columns: columns) }
                    }
                }
            }
            var restore = PairRestore(key: .init(from: entryVersion.name, to: arrival.name), crossing: crossing, entrySchema: entryVersion.relationalSchema(),
                                      toEnd: NameTranslation(along: Array(versions[(crossing + 1)...]), direction: direction),
                                      endSchema: versions[count].relationalSchema(), checks: checks)
            if count == 1 {
                if let reverse = reverseAccounts.first ?? nil { restore.wayUp = .init(account: reverse, source: versions[1], destination: versions[0]) }
                for proof in proofs {
                    restore.signatures[proof.table] = proof.signature
                    for column in proof.columns { restore.proofs[proof.table + "." + column.name] = (proof.from, WayBackProof.fingerprint(column)) }
                }
            }
            return restore
        }
    }
}
