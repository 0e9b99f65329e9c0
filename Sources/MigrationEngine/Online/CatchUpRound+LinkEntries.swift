import EntityModel
import TypedSQL

/// Which archive entries name links in their `left_value`, for a round to translate or renumber
/// them (``translatedLeftValues(of:)``, ``renumberDistinctRows()``).
///
/// A step notes in each archived column's entry what it left in the row (``StepArchive/afterStep()``):
/// where the column survives, the column's own text, whatever the app wrote (`{draft}`, an array's
/// `{a,b}`, JSON of its own that may even hold a link's name); where the step drops it, a JSON
/// object of the destination columns a mapping derived from it (`{"status_id": "6"}`). Only the
/// latter hold links, so they are told apart by what the entry is (its pair, table and column, as
/// the caught-up steps' archive plans know them), never by the text's first byte: a surviving
/// column's text is neither parsed (22P02 where it is not JSON) nor rewritten (the way down would
/// find it changed and keep the app's value).
extension CatchUpRound {
    /// A condition on the archive's alias `a`: the entry is of a column a caught-up step drops and
    /// derives the link `column` from, so its `left_value` is a JSON object that may hold it. Nil
    /// where no entry is.
    func entriesHoldingLink(_ column: String) -> SQL? {
        var seen: Set<[String]> = []
        let entries: [SQL] = plan.caughtUp.flatMap { step -> [SQL] in
            let archive = step.archivePlan
            return archive.items.compactMap { item -> SQL? in
                guard let source = item.column, let recorded = item.recordedColumn, item.derived.contains(column),
                      archive.names.survivingColumns[item.table + "." + source] == nil else { return nil }
                let pair = archive.pairs[item.pair]
                guard seen.insert([pair.from, pair.to, item.recordedTable, recorded]).inserted else { return nil }
                return "(a.step_from = \(literal: pair.from) AND a.step_to = \(literal: pair.to) "
                    + "AND a.table_name = \(literal: item.recordedTable) AND a.column_name = \(literal: recorded))"
            }
        }
        return entries.isEmpty ? nil : "(\(entries, joinedBy: " OR "))"
    }

    /// The link `column` (as text) that the `left_value` of an entry `entries` selects
    /// (``entriesHoldingLink(_:)``) names; NULL for every other entry, whose text is not parsed
    /// (a `CASE` evaluates its result only where its condition holds, whatever order the plan
    /// checks the statement's other conditions in).
    func archivedLink(_ column: String, in entries: SQL) -> SQL {
        "CASE WHEN \(entries) THEN a.left_value::pg_catalog.jsonb ->> \(literal: column) END"
    }
}
