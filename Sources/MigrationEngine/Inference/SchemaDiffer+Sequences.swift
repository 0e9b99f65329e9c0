import EntityModel

extension SchemaDiffer {
    /// The changes to the sequences the versions list: a new one is created before the tables (and
    /// after the enum types), a changed one (type, start, increment) altered in the catalog, its
    /// position kept. Old ones are dropped by ``finishSequences()``.
    mutating func diffSequences() {
        let oldSequences = Dictionary(old.sequences.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for sequence in new.sequences {
            if let previous = oldSequences[sequence.name] {
                let change = SequenceChange.alter(from: previous, to: sequence)
                if !change.statements.isEmpty { emit(.renameConstraints, .sequenceChange(change)) }
            } else {
                emit(.renameConstraints, .sequenceChange(.create(sequence)))
            }
        }
    }

    /// Drops the sequences the destination no longer lists, after the step's tables and defaults
    /// stopped drawing from them. The archive keeps its position (``ArchivePlan/removedSequences``)
    /// and a way back sets it there again; without the archive it is lost, and the step needs consent.
    mutating func finishSequences() {
        let newNames = Set(new.sequences.map(\.name))
        for sequence in old.sequences where !newNames.contains(sequence.name) {
            emit(.dropTables, .sequenceChange(.drop(sequence.name)))
            account.append(.init(kind: .rows, table: ""), .destroyed(DestructiveChange(kind: .dropSequence, table: "",
                detail: "drops the sequence \(sequence.name); the archive keeps its position, where a way back makes it again "
                    + "(without the archive, it makes it again at START \(sequence.start))")))
        }
    }

    /// A key's own sequence whose options change (an identity's, a `serial`'s, the key staying one
    /// or the other): altered in the catalog, its position kept, after the renames (a `serial`'s
    /// sequence has its table's new name by then).
    mutating func diffKeySequence(_ oldColumn: Column, _ newColumn: Column, table: String) {
        guard oldColumn.origin == .primaryKey, newColumn.origin == .primaryKey, oldColumn.sequenceOptions != newColumn.sequenceOptions,
              oldColumn.isIdentity == newColumn.isIdentity, oldColumn.isIdentity || (oldColumn.generation == .serial && newColumn.generation == .serial)
        else { return }
        let name = SQLName.serialSequence(ofTable: table)
        let sequence = { (column: Column) in (column.sequenceOptions ?? KeySequenceOptions()).sequence(named: name, type: column.type) }
        emit(.renameConstraints, .sequenceChange(.alterKey(table: table, identity: newColumn.isIdentity, from: sequence(oldColumn), to: sequence(newColumn))))
    }

    /// A key that changes between `serial` and an identity, or an identity between `BY DEFAULT`
    /// and `ALWAYS`: changed in the catalog, its sequence's position kept, once the column has its
    /// new type and after the step's rows moved (they still draw from the old default).
    mutating func diffKeyGeneration(_ oldColumn: Column, _ newColumn: Column, table: String) {
        guard oldColumn.origin == .primaryKey, newColumn.origin == .primaryKey,
              let from = oldColumn.keyGeneration, let to = newColumn.keyGeneration, from != to else { return }
        let sequence = (newColumn.sequenceOptions ?? KeySequenceOptions()).sequence(named: SQLName.serialSequence(ofTable: table), type: newColumn.type)
        emit(.finishColumns, .sequenceChange(.keyGeneration(table: table, from: from, to: to, sequence: sequence)))
    }

    /// When a table with a `serial` column is renamed, its sequence (`<table>_<column>_seq`, as
    /// PostgreSQL names it) follows, so that the tenant's catalog stays the destination's. (Names
    /// past 63 bytes, which PostgreSQL shortens, are left as they are.)
    mutating func renameSerialSequences(of oldTable: Table, to newTable: Table) {
        for column in oldTable.columns where column.generation == .serial {
            guard let newColumn = columnMatch[oldTable.name]?[column.name] else { continue }
            let from = "\(oldTable.name)_\(column.name)_seq", to = "\(newTable.name)_\(newColumn)_seq"
            guard from != to, from.utf8.count <= 63, to.utf8.count <= 63 else { continue }
            emit(.renameTables, .sequenceChange(.rename(from: from, to: to)))
        }
    }
}
