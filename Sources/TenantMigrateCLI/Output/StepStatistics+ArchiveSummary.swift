import MigrationEngine

extension StepStatistics {
    /// What the archive shows of a run, where it shows anything, for `check --round-trip` and
    /// `--rehearse`: `, 2 columns proved by the way back, 1 link restored by target`; empty when
    /// nothing. (Issue 30: links restored by target, proofs withheld as unsafe, values the app's
    /// changes superseded, through the row or through the rows its way back reads.)
    var archiveSummary: String {
        let parts: [(Int, String, String)] = [
            (provedColumns, "column proved by the way back", "columns proved by the way back"),
            (withheldProofs, "proof withheld as unsafe (archived in every row)", "proofs withheld as unsafe (archived in every row)"),
            (linksRestoredByTarget, "link restored by target", "links restored by target"),
            (supersededEntries, "archived value superseded by the app's change", "archived values superseded by the app's changes"),
            (recordedWayBacks, "table given back by the way back the archive recorded", "tables given back by the way back the archive recorded"),
        ]
        return parts.filter { $0.0 > 0 }.map { ", \($0.0) \($0.0 == 1 ? $0.1 : $0.2)" }.joined()
    }

    /// Where the archive showed it, one line each (``ArchiveFinding``): `Post.author (post.author_id):
    /// 1 link not given back (no row is what it pointed at)`.
    var findingLines: [String] { findings.map(\.description) }
}
