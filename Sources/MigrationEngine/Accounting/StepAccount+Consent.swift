/// Which destroyed items need consent, with and without the tenant's archive.
///
/// With the archive (the default), whatever the account says the step destroys in a named table
/// is copied to the archive first and can come back: only items that name no table (a sentence a
/// mapping declares under `loses:`) are truly lost. Without it (`--no-archive`), every destroyed
/// item is lost, and so are the values an expression or policy overwrites in place.
extension StepAccount {
    /// Destroyed items the archive keeps, in-place overwrites, and columns the step drops after a
    /// mapping read them: they can come back.
    public var archivedChanges: [DestructiveChange] {
        unique(destroyed.compactMap { entry in
            guard case let .destroyed(change) = entry.fate, change.isKeptByArchive else { return nil }
            return change
        } + overwrites + droppedAfterReading + keptForTheWayBack)
    }

    /// Columns the step carries as they are that its way back rewrites in place
    /// (``Entry/overwrittenByWayBack``): the archive keeps them, to give them back over the rewrite.
    var keptForTheWayBack: [DestructiveChange] {
        entries.compactMap { entry in
            guard entry.overwrittenByWayBack == true, let column = entry.item.column else { return nil }
            return DestructiveChange(kind: .custom, table: entry.item.table, column: column, rowSet: entry.item.rows,
                                     detail: "keeps \(entry.item.table).\(column)\(entry.item.property.map { " (\($0))" } ?? ""): the way up rewrites it in place")
        }
    }

    /// Columns the step drops that a mapping or policy read (or carried elsewhere): the archive
    /// keeps their values too, since the way back may not rebuild them exactly (where the step's
    /// way back writes them, only in the rows where it would not: ``Entry/wayBackSentence``).
    var droppedAfterReading: [DestructiveChange] {
        guard let names else { return [] }
        return entries.compactMap { entry in
            guard entry.reversible != true, entry.overwritesInPlace != true, entry.item.kind == .column, let column = entry.item.column,
                  names.survivingColumns[entry.item.table + "." + column] == nil else { return nil }
            let how: String
            switch entry.fate {
            case .destroyed: return nil
            case let .transformed(by): how = "read by \(by)"
            case let .carried(location): how = "carried to \(location)"
            }
            return DestructiveChange(kind: .dropColumn, table: entry.item.table, column: column, rowSet: entry.item.rows,
                                     detail: "drops \(entry.item.table).\(column)\(entry.item.property.map { " (\($0))" } ?? ""), \(how)"
                                        + (entry.wayBackSentence.map { ": " + $0 } ?? ""))
        }
    }

    /// The items truly lost: what consent (`--allow-destructive`) is asked for up front.
    public func lostChanges(archiving: Bool) -> [DestructiveChange] {
        archiving ? destructiveChanges.filter { !$0.isKeptByArchive } : unique(destructiveChanges + overwrites)
    }

    /// Values an expression or policy writes over in place.
    var overwrites: [DestructiveChange] {
        entries.compactMap { entry in
            guard entry.overwritesInPlace == true, case let .transformed(by) = entry.fate else { return nil }
            let what = entry.item.column.map { "\(entry.item.table).\($0)" } ?? entry.item.table
            return DestructiveChange(kind: .custom, table: entry.item.table, column: entry.item.column, rowSet: entry.item.rows,
                                     detail: "\(by) overwrites \(what)\(entry.item.property.map { " (\($0))" } ?? "")"
                                        + (entry.item.rows.map { " \($0.clause)" } ?? "")
                                        + (entry.changedOnly == true ? "; the archive keeps the values it changes (the way back carries the others back as they are)" : ""))
        }
    }

    private func unique(_ changes: [DestructiveChange]) -> [DestructiveChange] {
        var seen: Set<DestructiveChange> = []
        return changes.filter { seen.insert($0).inserted }
    }
}

extension MigrationPlan {
    /// Items the archive keeps, over all steps (they come back on the way down).
    public var archivedChanges: [DestructiveChange] { steps.flatMap(\.account.archivedChanges) }

    /// Items truly lost, over all steps: running the plan needs consent up front.
    public func lostChanges(archiving: Bool) -> [DestructiveChange] { steps.flatMap { $0.account.lostChanges(archiving: archiving) } }
}
