extension StepAccount {
    /// Notes, on the entries of the columns `proofs` cover, the way back that gives them back
    /// (``Entry/wayBack``): the transformed or carried values of a column the step drops.
    mutating func noteWayBack(of proofs: [WayBackProof]) {
        var files: [String: String] = [:]
        for proof in proofs {
            // (A column archived in every row keeps the plain account: archived.)
            for column in proof.columns where column.spares { files[proof.table + "." + column.name] = proof.file }
        }
        for index in entries.indices {
            let entry = entries[index]
            guard entry.item.kind == .column, let column = entry.item.column, let file = files[entry.item.table + "." + column],
                  entry.reversible != true, entry.overwritesInPlace != true else { continue }
            switch entry.fate {
            case .transformed, .carried: entries[index].wayBack = file
            case .destroyed: continue
            }
        }
    }
}

extension StepAccount {
    /// Notes, on the in-place overwrites of the columns `keys` names (`table.column`), that the
    /// archive keeps only the values they change (``Entry/changedOnly``).
    mutating func noteChangedOnly(_ keys: Set<String>) {
        for index in entries.indices where entries[index].overwritesInPlace == true {
            guard let column = entries[index].item.column, keys.contains(entries[index].item.table + "." + column) else { continue }
            entries[index].changedOnly = true
        }
    }
}

extension StepAccount.Entry {
    /// How the archive keeps what this entry's step drops, for `plan`, `check` and the plan
    /// document: `transformed; the way back (file) gives it back, checked row by row where …; rows where it
    /// would not are archived` (`carried to …;` for a value kept elsewhere), or nil for an entry
    /// without a way back.
    public var wayBackSentence: String? {
        guard wayBack != nil else { return nil }
        let fate: String
        switch self.fate {
        case let .carried(location): fate = "carried to \(location)"
        case .transformed, .destroyed: fate = "transformed"
        }
        return "\(fate); " + wayBackCheck!
    }

    /// `the way back (file) gives it back, checked row by row where PostgreSQL finds its expression
    /// immutable (else every value is archived); rows where it would not are
    /// archived`, or nil for an entry without a way back.
    public var wayBackCheck: String? {
        wayBack.map { "the way back (\($0)) gives it back, checked row by row where PostgreSQL finds its expression immutable (else every value is archived); rows where it would not are archived" }
    }
}
