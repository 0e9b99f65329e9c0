extension StepAccount {
    /// Notes, on the entries of the columns this step carries as they are that its way back (`wayBack`:
    /// the pair's account crossed the other way) overwrites in place, that the archive keeps them
    /// (``Entry/overwrittenByWayBack``): values this version's app wrote that the way back's
    /// expression or policy would rewrite (`upper(source.name)` of a name written in mixed case
    /// here). Crossing back, compare-and-restore gives them back over what the overwrite made
    /// where the row still holds what this step left; a value the app changed meanwhile goes
    /// through the overwrite.
    mutating func noteOverwrittenByWayBack(_ wayBack: StepAccount) {
        let overwritten = Set(wayBack.entries.compactMap { entry -> Location? in
            guard entry.overwritesInPlace == true, entry.item.kind == .column, let column = entry.item.column else { return nil }
            return Location(table: entry.item.table, column: column)
        })
        guard !overwritten.isEmpty else { return }
        for index in entries.indices where entries[index].item.kind == .column && entries[index].overwritesInPlace != true {
            guard case let .carried(location) = entries[index].fate, location.column != nil, overwritten.contains(location) else { continue }
            entries[index].overwrittenByWayBack = true
        }
    }

    /// Whether some column this account carries as it is, `wayBack` overwrites in place (what
    /// ``noteOverwrittenByWayBack(_:)`` notes).
    func carriesWhatIsOverwritten(by wayBack: StepAccount) -> Bool {
        var copy = self
        copy.noteOverwrittenByWayBack(wayBack)
        return copy.entries.contains { $0.overwrittenByWayBack == true }
    }
}
