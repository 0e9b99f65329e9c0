import EntityModel
import LibPQ
import TypedSQL

/// A sequence the model no longer lists keeps its position in the archive: the way up copies its
/// last value before it drops it, and the way back, which makes it again, sets it there, so that
/// rows the archive gives back and rows the app adds next do not get one id twice. One entry per
/// sequence: its name as `table_name`, ``StepArchive/sequenceColumn`` as `column_name`, row id 0,
/// the last value drawn as `value` (NULL where nothing was drawn: it comes back at its start).
extension ArchivePlan {
    /// A sequence a step drops, and the pair (of the step's) that removed it.
    struct RemovedSequence: Sendable, Hashable {
        let name: String
        let pair: Int
    }

    /// The sequences `versions`' first lists and its last does not, each with the first pair along
    /// `versions` whose destination no longer lists it.
    static func removedSequences(along versions: [ModelVersion]) -> [RemovedSequence] {
        let kept = Set(versions[versions.count - 1].sequences.map(\.name))
        return versions[0].sequences.filter { !kept.contains($0.name) }.compactMap { sequence in
            zip(versions, versions.dropFirst()).enumerated().first { _, pair in
                !pair.1.sequences.contains { $0.name == sequence.name }
            }.map { RemovedSequence(name: sequence.name, pair: $0.offset) }
        }
    }
}

extension StepArchive {
    /// The column name of the entry that keeps a dropped sequence's last value.
    static let sequenceColumn = "#sequence"

    /// Before the step drops them: the positions of the sequences it removes, queued.
    func copySequencePositions() throws {
        for removed in plan.removedSequences {
            let pair = plan.pairs[removed.pair]
            try connection.sendWithNextRoundTrip(Statement(
                "INSERT INTO \(archiveTable) (step_from, step_to, table_name, column_name, row_id, value) "
                    + "SELECT \(bind: .text(pair.from)), \(bind: .text(pair.to)), \(bind: .text(removed.name)), \(bind: .text(Self.sequenceColumn)), 0, "
                    + "pg_catalog.pg_sequence_last_value(pg_catalog.to_regclass(\(qualifiedNameLiteral: removed.name)))::text", schema: schema))
        }
    }

    /// Sets each sequence the pair's way up removed, and this step made again, where it stood.
    func restoreSequencePositions(_ restore: PairRestore, _ entries: [(table: String, column: String)]) throws {
        for (name, column) in entries where column == Self.sequenceColumn {
            let sequence: SQL = "pg_catalog.to_regclass(\(qualifiedNameLiteral: name))"
            try connection.execute("SELECT pg_catalog.setval(\(sequence), a.value::bigint) FROM \(archiveTable) AS a "
                + "WHERE a.step_from = \(literal: restore.key.from) AND a.step_to = \(literal: restore.key.to) AND a.table_name = \(literal: name) "
                + "AND a.column_name = \(literal: column) AND NOT a.superseded AND a.value IS NOT NULL AND \(sequence) IS NOT NULL", schema: schema)
        }
    }
}
