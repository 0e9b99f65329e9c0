extension ERDiagram {
    /// The marks of a marked diagram as sentences, entities first, then their rows, relationships
    /// and inheritance: `entity Ingredient added`, `Recipe.method renamed from instructions`,
    /// `Recipe.servings changed, type int16 → int32`, `Issue.status (relationship to Status) added`.
    /// Empty for an unmarked diagram.
    public var changeList: [String] {
        var list: [String] = []
        for box in boxes {
            if let change = box.change { list.append("entity \(box.name) \(change.phrase)") }
        }
        for box in boxes where box.change != .removed && box.change != .added {
            for row in box.rows {
                guard let change = row.change else { continue }
                // A name that two changed rows share (an attribute replaced by a to-one) says which is which.
                let shared = box.rows.filter { $0.name == row.name && $0.change != nil }.count > 1
                list.append("\(box.name).\(row.name)\(shared ? " (\(row.kind))" : "") \(change.phrase)")
            }
        }
        for box in boxes where box.change == .added {
            for row in box.rows {
                if case .moved? = row.change { list.append("\(box.name).\(row.name) \(row.change!.phrase)") }
            }
        }
        for link in links {
            guard let change = link.change else { continue }
            let names = [link.right.label.map { "\(link.left.entity).\($0)" }, link.left.label.map { "\(link.right.entity).\($0)" }]
            list.append("relationship \(names.compactMap { $0 }.joined(separator: " / ")) \(change.phrase)")
        }
        for link in inheritance {
            if let change = link.change { list.append("\(link.child) is a \(link.parent): \(change.phrase)") }
        }
        return list
    }
}

extension ERDiagram.Row {
    /// `relationship to Status` for a to-one (a row with a foreign key), `attribute, string` otherwise.
    var kind: String {
        keys.contains("FK") ? "relationship to \(type)" : "attribute, \(type)"
    }
}
