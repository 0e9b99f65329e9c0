/// Keys as the schema has them: an `id` of any type and generation (serial, identity, uuid, a
/// sequence's `nextval`), natural and composite primary keys, and the sequences no column owns.
extension ImportPlan {
    /// The key columns of an entity table (its primary key), or nil when `table` is none.
    func keyColumns(ofTable table: String) -> [String]? {
        drafts[table]?.table.primaryKey
    }

    /// Whether `key` references the whole key of an entity table, of one column.
    func referencesEntityKey(_ key: ForeignKeySnapshot) -> Bool {
        guard let columns = keyColumns(ofTable: key.referencedTable), columns.count == 1 else { return false }
        return key.referencedColumns == columns
    }

    /// The type of the column a foreign key references.
    func referencedType(of key: ForeignKeySnapshot) -> String? {
        key.referencedColumns.first.flatMap { drafts[key.referencedTable]?.table.column(named: $0)?.type }
    }

    /// The sequences of the schema that no column owns, and that the model can declare.
    var standaloneSequences: [SequenceSnapshot] {
        snapshot.sequences.filter { $0.ownedBy == nil && $0.options != nil && SQLName.isSQLName($0.name) && !SQLName.isToolName($0.name)
            && PostgreSQLTypeName.parse($0.type).map(SurrogateKey.integerTypes.contains) == true }
    }

    /// Whether `expression` draws from a sequence the imported version declares.
    func drawsFromDeclaredSequence(_ expression: String) -> Bool {
        guard let name = DefaultValue.sequenceName(inNextval: expression) else { return false }
        return standaloneSequences.contains { $0.name == name }
    }

    /// The version's `sequences:`; the sequences it cannot declare are noted.
    mutating func readSequences() -> [ModelSequence] {
        let declared = standaloneSequences
        for sequence in snapshot.sequences where sequence.ownedBy == nil && !declared.contains(sequence) {
            note(.notExpressed, "sequence \(sequence.name)", "it is \(sequence.definitionText); a sequence of the model is smallint, integer or bigint")
        }
        return declared.map { sequence in
            sequence.keySequenceOptions!.sequence(named: sequence.name, type: PostgreSQLTypeName.parse(sequence.type)!).normalizingBounds()
        }
    }

    /// The `id` key of `table` as the model writes it, or nil for the standard key; a note where
    /// the model cannot carry it as it is.
    mutating func surrogateKey(of table: TableSnapshot) -> EntityKey? {
        guard let id = table.column(named: SQLName.primaryKeyColumn) else { return nil }
        let element = "column \(table.name).id"
        guard let type = PostgreSQLTypeName.parse(id.type), PostgreSQLTypeName.catalogName(type) == id.type else {
            note(.adapted, element, "its type \(id.type) is not one the model has; carried as bigint, so adopting needs ALTER TABLE to change it")
            return nil
        }
        var key = SurrogateKey(type: type)
        if id.isIdentity {
            key.generation = id.identityGeneration == "ALWAYS" ? .always : .byDefault
            if let options = id.identitySequenceOptions {
                key.sequenceOptions = options.normalized(for: type)
            } else {
                note(.adapted, element, "its identity's sequence has options the model cannot read (\(id.identitySequence ?? "")); carried with the defaults")
            }
        } else if let expression = id.defaultExpression {
            let owned = snapshot.sequences.first { $0.name == DefaultValue.sequenceName(inNextval: expression) && $0.ownedBy == "\(table.name).id" }
            if let owned, SurrogateKey.integerTypes.contains(type), owned.type == id.type, let options = owned.keySequenceOptions,
               owned.name == SQLName.serialSequence(ofTable: table.name), owned.name.utf8.count <= SQLName.maximumLength {
                key.generation = .serial
                key.sequenceOptions = options.normalized(for: type)
            } else if owned != nil {
                note(.adapted, element, "it draws from \(owned!.name), a sequence it owns of another type or name than serial gives (\(owned!.definitionText)); "
                    + "carried as serial, so adopting needs the sequence changed")
                key.generation = .serial
            } else if CatalogText.isExpressibleDefault(expression) || drawsFromDeclaredSequence(expression) {
                key.defaultExpression = expression
            } else {
                note(.notExpressed, element, "its default \(expression) draws from a sequence the model cannot declare")
            }
        }
        return key == .standard ? nil : .id(key)
    }

    /// Each entity's key: its `id` as it is, or the properties that hold its primary key's columns.
    mutating func readKeys() {
        for tableName in drafts.keys.sorted() {
            let draft = drafts[tableName]!
            guard let columns = draft.table.primaryKey else { continue }
            if columns == [SQLName.primaryKeyColumn] {
                keys[tableName] = surrogateKey(of: draft.table)
                continue
            }
            var propertyOfColumn: [String: String] = [:]
            for attribute in draft.attributes[draft.name] ?? [] { propertyOfColumn[attribute.columnName] = attribute.name }
            for relationship in draft.relationships[draft.name] ?? [] where !relationship.isToMany {
                propertyOfColumn[relationship.foreignKeyColumnName] = relationship.name
            }
            let properties = columns.compactMap { propertyOfColumn[$0] }
            guard properties.count == columns.count else {
                note(.notExpressed, "primary key of \(tableName) (\(columns.joined(separator: ", ")))", "a column of it is not a property of the entity")
                continue
            }
            keys[tableName] = .properties(properties)
        }
    }
}
