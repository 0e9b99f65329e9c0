import LibPQ
import TypedSQL

extension StepArchive {
    /// Notes, for reports (``ArchiveFinding/Kind/proofWithheld``), each column whose proof by the
    /// way back `full` (the step's plan before PostgreSQL judged its proofs) made and this run's
    /// plan withheld, with how many entries the step archived of it (every row's). One query per
    /// such column, only where a proof was withheld.
    ///
    /// - Parameter reasons: why PostgreSQL did not vouch for each table's proof (``WayBackTrust/Verdict``).
    func noteWithheldProofs(of full: ArchivePlan, reasons: [String: String]) throws {
        for item in full.items where item.proved && !plan.items.contains(where: { $0.proved && $0.key == item.key }) {
            guard let column = item.recordedColumn else { continue }
            let entries = try connection.execute(
                "SELECT pg_catalog.count(*) FROM \(archiveTable) AS a WHERE \(entryIs("a", plan.pairs[item.pair], item.recordedTable, column))", schema: schema)
            let rows = Int(try entries.first?.decode(Int64.self, at: 0) ?? 0)
            var finding = ArchiveFinding(kind: .proofWithheld, table: item.recordedTable, column: column, rows: rows, in: plan.sourceSchema)
            finding.reason = reasons[item.table]
            findings.add(finding)
        }
    }
}
