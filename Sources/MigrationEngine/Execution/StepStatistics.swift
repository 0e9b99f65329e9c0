/// What one step did.
public struct StepStatistics: Sendable, Codable, Hashable {
    /// Statements executed.
    public var statements: Int = 0
    /// Rows inserted, updated or deleted by data-moving statements.
    public var rowsAffected: Int = 0
    /// Wall time in milliseconds.
    public var milliseconds: Double = 0
    /// Archived values a way back did not give back because the app's change won (or their row is
    /// gone): kept in the archive, marked superseded (`archive list`, `archive restore --superseded`).
    public var supersededEntries: Int = 0
    /// Dropped columns the step archived only where its way back would not give the value back (a
    /// proof by the way back PostgreSQL vouched for, ``WayBackProof``).
    public var provedColumns: Int = 0
    /// Dropped columns whose proof by the way back was withheld because PostgreSQL does not vouch
    /// for its expression (volatile, setting-dependent, reading outside the tenant): archived in
    /// every row.
    public var withheldProofs: Int = 0
    /// Links given back into a table the step made anew, to the row that is what they pointed at
    /// (``LinkTarget``).
    public var linksRestoredByTarget: Int = 0
    /// Tables whose values the way up did not archive were given back by the way back the archive
    /// recorded, the family's having changed since (``RecordedWayBack``).
    public var recordedWayBacks: Int = 0
    /// Archived values and rows the step's way back gave back (compare-and-restore), counted in
    /// ``rowsAffected`` too.
    public var restoredEntries: Int = 0
    /// Where the archive showed something, by table and column, with the rows it concerns: proofs
    /// withheld as unsafe, archived values superseded, links and rows not given back
    /// (``ArchiveFinding``). The counts above say how many; these say where.
    public var findings: [ArchiveFinding] = []

    public init(statements: Int = 0, rowsAffected: Int = 0, milliseconds: Double = 0, supersededEntries: Int = 0, restoredEntries: Int = 0) {
        self.statements = statements
        self.rowsAffected = rowsAffected
        self.milliseconds = milliseconds
        self.supersededEntries = supersededEntries
        self.restoredEntries = restoredEntries
    }

    public static func + (lhs: StepStatistics, rhs: StepStatistics) -> StepStatistics {
        var sum = StepStatistics(statements: lhs.statements + rhs.statements, rowsAffected: lhs.rowsAffected + rhs.rowsAffected,
                                 milliseconds: lhs.milliseconds + rhs.milliseconds)
        sum.addArchiveCounts(of: lhs)
        sum.addArchiveCounts(of: rhs)
        sum.restoredEntries = lhs.restoredEntries + rhs.restoredEntries
        return sum
    }

    /// What the archive showed of a run beyond its superseded values, for reports (`--json`).
    public struct ArchiveCounts: Sendable, Codable, Hashable {
        public var provedColumns: Int
        public var withheldProofs: Int
        public var linksRestoredByTarget: Int
        public var recordedWayBacks: Int
        /// Where (``StepStatistics/findings``); nil when nothing.
        public var findings: [ArchiveFinding]?
    }

    /// ``ArchiveCounts``, nil when all are 0.
    public var archiveCounts: ArchiveCounts? {
        let counts = ArchiveCounts(provedColumns: provedColumns, withheldProofs: withheldProofs, linksRestoredByTarget: linksRestoredByTarget,
                                   recordedWayBacks: recordedWayBacks, findings: findings.isEmpty ? nil : findings)
        return counts == ArchiveCounts(provedColumns: 0, withheldProofs: 0, linksRestoredByTarget: 0, recordedWayBacks: 0, findings: nil) ? nil : counts
    }

    /// Adds what `other`'s archive did (its proofs, links, superseded values and recorded ways
    /// back), not its statements, rows or time: a rehearsal reports its way back so.
    public mutating func addArchiveCounts(of other: StepStatistics) {
        supersededEntries += other.supersededEntries
        provedColumns += other.provedColumns
        withheldProofs += other.withheldProofs
        linksRestoredByTarget += other.linksRestoredByTarget
        recordedWayBacks += other.recordedWayBacks
        for finding in other.findings { findings.add(finding) }
    }

    private enum CodingKeys: String, CodingKey {
        case statements, rowsAffected, milliseconds, supersededEntries, restoredEntries, provedColumns, withheldProofs, linksRestoredByTarget, recordedWayBacks, findings
    }

    /// (Reports written before ``supersededEntries``, ``restoredEntries`` or the archive's counts decode with 0 for them.)
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        statements = try container.decode(Int.self, forKey: .statements)
        rowsAffected = try container.decode(Int.self, forKey: .rowsAffected)
        milliseconds = try container.decode(Double.self, forKey: .milliseconds)
        supersededEntries = try container.decodeIfPresent(Int.self, forKey: .supersededEntries) ?? 0
        provedColumns = try container.decodeIfPresent(Int.self, forKey: .provedColumns) ?? 0
        withheldProofs = try container.decodeIfPresent(Int.self, forKey: .withheldProofs) ?? 0
        linksRestoredByTarget = try container.decodeIfPresent(Int.self, forKey: .linksRestoredByTarget) ?? 0
        recordedWayBacks = try container.decodeIfPresent(Int.self, forKey: .recordedWayBacks) ?? 0
        restoredEntries = try container.decodeIfPresent(Int.self, forKey: .restoredEntries) ?? 0
        findings = try container.decodeIfPresent([ArchiveFinding].self, forKey: .findings) ?? []
    }
}
