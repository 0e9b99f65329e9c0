extension ImportPlan {
    /// Reads every column of every entity table: a single-column foreign key to an entity's `id`
    /// becomes a to-one (its inverse is named later), any other column an attribute with its type,
    /// optionality, default, and single-column unique constraint or index. Then notes what is left
    /// unread: other constraints and indexes.
    mutating func readColumns() {
        for tableName in drafts.keys.sorted() {
            var draft = drafts[tableName]!
            for column in draft.table.columns where !draft.readColumns.contains(column.name) {
                if let key = draft.table.foreignKeys.first(where: { $0.columns == [column.name] }),
                   referencesEntityKey(key) {
                    readToOne(column, key: key, in: &draft)
                } else {
                    readAttribute(column, in: &draft)
                }
            }
            readConstraints(in: &draft)
            noteUnread(draft)
            drafts[tableName] = draft
        }
    }

    /// A property name for `column`: its camelCase when that maps back to it, else a name that
    /// needs `column:`. Nil (with a note) when the column's name cannot be written in a model.
    private mutating func propertyName(for column: String, default defaultName: String?, in draft: inout EntityDraft) -> String? {
        let element = "column \(draft.table.name).\(column)"
        guard SQLName.isSQLName(column), !SQLName.isReserved(column) else {
            note(.notExpressed, element, "its name is reserved or is not an identifier the model can write (letters, digits and _, not starting with _tm_)")
            return nil
        }
        return ModelNaming.unique(defaultName ?? ModelNaming.lowerCamel(column) ?? "value", in: &draft.takenNames)
    }

    private mutating func readAttribute(_ column: ColumnSnapshot, in draft: inout EntityDraft) {
        let table = draft.table, element = "column \(table.name).\(column.name)"
        guard let name = propertyName(for: column.name, default: ModelNaming.name(forSQLName: column.name, upper: false), in: &draft) else {
            return
        }
        draft.readColumns.insert(column.name)
        let (type, columnType, isExact) = attributeType(for: column.type)
        if !isExact {
            let what = domain(column.type).map(domainText) ?? enumOfArray(column.type).map { ", an array of the enum type \($0), which the model does not carry," } ?? ""
            let base = domain(column.type) == nil ? "" : "its base type "
            note(.adapted, element, "its type \(column.type)\(what) is carried as \(base)\(type.rawValue) (\((columnType ?? type.sqlType).catalogName)); adopting needs ALTER TABLE to change it")
        }
        if column.isIdentity { note(.notExpressed, element, "an identity column other than id") }
        var defaultValue: DefaultValue?
        if let expression = column.defaultExpression {
            defaultValue = CatalogText.defaultValue(expression, as: type)
            // A floating-point constant the model would write otherwise (`0.0` for `0`) is kept as written.
            if case .floatingPoint(let value)? = defaultValue, value.isFinite, "\(value)" != expression { defaultValue = .expression(expression) }
            if defaultValue == nil, CatalogText.isExpressibleDefault(expression) || drawsFromDeclaredSequence(expression) {
                defaultValue = .expression(expression)
            } else if defaultValue == nil {
                note(.notExpressed, element, "its default \(expression) is generated or draws from a sequence, which the model does not carry")
            }
        }
        let owner = draft.owner(of: column.name)
        let isUnique = draft.table.uniqueConstraints.contains([column.name])
        if isUnique { draft.readUniques.insert([column.name]) }
        var isIndexed = false
        if !isUnique, let index = plainIndex(on: column.name, in: table, excluding: draft.readIndexes) {
            isIndexed = true
            draft.readIndexes.insert(index)
        }
        draft.attributes[owner, default: []].append(Attribute(
            name: name, type: type, columnType: columnType, isOptional: owner == draft.name && column.isNullable, defaultValue: defaultValue,
            isUnique: isUnique, isIndexed: isIndexed, columnOverride: name.snakeCased == column.name ? nil : column.name
        ))
    }

    private mutating func readToOne(_ column: ColumnSnapshot, key: ForeignKeySnapshot, in draft: inout EntityDraft) {
        let table = draft.table, element = "foreign key \(table.name).\(column.name)"
        let stem = column.name.hasSuffix("_id") ? ModelNaming.name(forSQLName: String(column.name.dropLast(3)), upper: false) : nil
        guard let name = propertyName(for: column.name, default: stem, in: &draft) else { return }
        draft.readColumns.insert(column.name)
        draft.readForeignKeys.insert([column.name])
        if let expected = referencedType(of: key), column.type != expected {
            note(.adapted, "column \(table.name).\(column.name)", "it is \(column.type); a to-one's key column has the type of the key it references, \(expected), "
                + "so adopting needs ALTER TABLE to change it")
        }
        if column.defaultExpression != nil { note(.notExpressed, "column \(table.name).\(column.name)", "a to-one's key column has no default") }
        let isOneToOne = table.uniqueConstraints.contains([column.name])
        var isIndexed = true
        if isOneToOne {
            draft.readUniques.insert([column.name])
        } else if let index = plainIndex(on: column.name, in: table, excluding: draft.readIndexes) {
            draft.readIndexes.insert(index)
        } else {
            isIndexed = false
        }
        let onUpdate = key.onUpdate.flatMap(Self.rule(for:))
        if let action = key.onUpdate, onUpdate == nil { note(.notExpressed, element, "ON UPDATE \(action)") }
        if let deferral = key.deferral, deferral != "DEFERRABLE INITIALLY DEFERRED" {
            note(.notExpressed, element, "\(deferral) (a foreign key is deferred or not deferrable)")
        }
        let deleteRule: DeleteRule
        if let rule = Self.rule(for: key.onDelete) {
            deleteRule = rule
        } else {
            note(.notExpressed, element, "ON DELETE \(key.onDelete) (a delete rule is nullify, cascade, deny or noAction)")
            deleteRule = .noAction
        }
        let owner = draft.owner(of: column.name)
        var relationship = Relationship(
            name: name, destination: drafts[key.referencedTable]!.name, isOptional: owner == draft.name && column.isNullable,
            columnOverride: name.snakeCased + "_id" == column.name ? nil : column.name
        )
        relationship.onUpdate = onUpdate == .noAction ? nil : onUpdate
        relationship.isDeferred = key.deferral == "DEFERRABLE INITIALLY DEFERRED"
        relationship.isIndexed = isIndexed
        draft.relationships[owner, default: []].append(relationship)
        pendingInverses.append(PendingInverse(
            holder: owner, holderRoot: draft.name, relationship: name, destinationTable: key.referencedTable,
            isOneToOne: isOneToOne, deleteRule: deleteRule, element: element
        ))
    }

    /// The delete rule whose foreign-key action is `action` (`CASCADE` → cascade), or nil for `SET DEFAULT`.
    static func rule(for action: String) -> DeleteRule? {
        DeleteRule.allCases.first { $0.referentialAction.sql == action }
    }

    /// The name of a plain index on `column` (btree, not unique, no predicate) not yet read.
    private func plainIndex(on column: String, in table: TableSnapshot, excluding read: Set<String>) -> String? {
        table.indexes.first { $0.columns == [column] && !$0.isUnique && $0.method == "btree" && $0.predicate == nil && !read.contains($0.name) }?.name
    }

    /// The unique constraints over several columns of the root's properties, as the root's
    /// `uniques:`; the indexes not read as `indexed: true`, as its `indexes:` (keys that are columns
    /// of its properties by the property's name); and the check constraints the model does not make
    /// itself, as its `checks:` (a `NOT VALID` or `NO INHERIT` one stays noted).
    private mutating func readConstraints(in draft: inout EntityDraft) {
        var propertyOfColumn: [String: String] = [:]
        for attribute in draft.attributes[draft.name] ?? [] { propertyOfColumn[attribute.columnName] = attribute.name }
        for relationship in draft.relationships[draft.name] ?? [] { propertyOfColumn[relationship.foreignKeyColumnName] = relationship.name }
        for unique in draft.table.uniqueConstraints where unique.count > 1 && !draft.readUniques.contains(unique) {
            let properties = unique.compactMap { propertyOfColumn[$0] }
            guard properties.count == unique.count else { continue }
            draft.uniques.append(properties)
            draft.readUniques.insert(unique)
        }
        for index in draft.table.indexes where !draft.readIndexes.contains(index.name) {
            let keys = index.columns.map { key -> String in
                let words = key.split(separator: " ", maxSplits: 1).map(String.init)
                guard !key.hasPrefix("("), let property = propertyOfColumn[words[0]] else { return key }
                return property + (words.count > 1 ? " " + words[1] : "")
            }
            draft.indexes.append(EntityIndex(keys: keys, isUnique: index.isUnique, method: index.method, predicate: index.predicate))
            draft.readIndexes.insert(index.name)
        }
        for check in draft.table.checks where !draft.readChecks.contains(check) {
            guard check.hasPrefix("CHECK ("), check.hasSuffix(")") else { continue }
            draft.checks.append(CatalogText.condition(ofCheck: String(check.dropFirst("CHECK (".count).dropLast())))
            draft.readChecks.insert(check)
        }
    }

    /// Notes the constraints and indexes of `draft`'s table that the model does not hold.
    private mutating func noteUnread(_ draft: EntityDraft) {
        let table = draft.table
        for unique in table.uniqueConstraints where !draft.readUniques.contains(unique) {
            note(.notExpressed, "unique constraint on \(table.name) (\(unique.joined(separator: ", ")))",
                 "the model's unique constraints are on one attribute each")
        }
        for index in table.indexes where !draft.readIndexes.contains(index.name) {
            note(.notExpressed, "index \(index.name) on \(table.name) \(index.text)",
                 "the model's indexes are plain btree indexes on one attribute or to-one")
        }
        for key in table.foreignKeys where !draft.readForeignKeys.contains(key.columns) {
            note(.notExpressed, "foreign key on \(table.name) \(key.text)",
                 "a to-one is one bigint column referencing an entity table's id in the same schema; its column is an attribute")
        }
        for check in table.checks where !draft.readChecks.contains(check) {
            note(.notExpressed, "check on \(table.name)", "\(check): the model's checks are those of inheritance")
        }
    }
}
