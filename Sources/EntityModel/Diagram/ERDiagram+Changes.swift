extension ERDiagram {
    /// One diagram of the walk along `path` (either way along the family's list; more than one
    /// pair for a fused step), drawn as the last version with what changed marked:
    /// entities, rows, relationships and inheritance links that were added, removed, renamed,
    /// moved to another entity of their hierarchy, or changed in shape. What the walk removes is
    /// drawn too, marked removed.
    public init(changesAlong path: VersionPath) {
        let match = ModelMatch.along(path)
        let before = ERDiagram(version: path.source), after = ERDiagram(version: path.destination)
        let sourceOf = Dictionary(match.properties.map { ($1, $0) }, uniquingKeysWith: { $0.name < $1.name ? $0 : $1 })
        let sourceEntityOf = Dictionary(match.entities.map { ($1, $0) }, uniquingKeysWith: min)
        let oldRows = Dictionary(before.boxes.flatMap(\.rows).compactMap { row in row.property.map { ($0, row) } },
                                 uniquingKeysWith: { first, _ in first })
        let afterNames = Set(after.boxes.map(\.name))
        /// Where a source entity is drawn: its destination box, or its own (removed) box.
        var boxName: [String: String] = [:]
        for box in before.boxes {
            boxName[box.name] = match.entities[box.name] ?? (afterNames.contains(box.name) ? box.name + "_removed" : box.name)
        }

        var boxes = after.boxes.map { box -> Box in
            var box = box
            guard let source = sourceEntityOf[box.name] else {
                // A new entity: its rows are new with it, unless they moved here from elsewhere.
                box.change = .added
                for index in box.rows.indices {
                    if let key = box.rows[index].property, let old = sourceOf[key] { box.rows[index].change = .moved(from: old.entity) }
                }
                return box
            }
            if source != box.name { box.change = .renamed(from: source) }
            let oldKey = before.boxes.first { $0.name == source }?.rows.first { $0.property == nil && $0.name == SQLName.primaryKeyColumn }
            for index in box.rows.indices {
                guard let key = box.rows[index].property else {
                    // The key's own row (`id`): its generation and its sequence's options.
                    let row = box.rows[index]
                    if row.name == SQLName.primaryKeyColumn, let oldKey, oldKey.type != row.type || oldKey.keys != row.keys || oldKey.notes != row.notes {
                        box.rows[index].change = .changed(Self.difference(from: oldKey, to: row))
                    }
                    continue
                }
                box.rows[index].change = Self.rowChange(key: key, sourceOf: sourceOf, oldRows: oldRows, match: match,
                                                        row: box.rows[index])
            }
            let removed = before.boxes.first { $0.name == source }?.rows.filter { row in
                row.property.map { match.properties[$0] == nil } ?? false
            } ?? []
            box.rows += removed.map { row in
                var row = row
                row.change = .removed
                return row
            }
            return box
        }
        for box in before.boxes where match.entities[box.name] == nil {
            var removed = box
            removed.name = boxName[box.name]!
            removed.change = .removed
            // Rows that live on elsewhere are drawn there, marked moved.
            removed.rows.removeAll { row in row.property.map { match.properties[$0] != nil } ?? false }
            boxes.append(removed)
        }

        let links = Self.markedLinks(before: before.links, after: after.links, match: match, sourceOf: sourceOf, boxName: boxName)
        var inheritance = after.inheritance.map { link -> Inheritance in
            var link = link
            let existed = before.inheritance.contains { boxName[$0.child] == link.child && boxName[$0.parent] == link.parent }
            if !existed { link.change = .added }
            return link
        }
        for link in before.inheritance where !after.inheritance.contains(where: { boxName[link.child] == $0.child && boxName[link.parent] == $0.parent }) {
            inheritance.append(Inheritance(child: boxName[link.child]!, parent: boxName[link.parent]!, change: .removed))
        }
        self.init(boxes: boxes, links: links, inheritance: inheritance)
    }

    private static func rowChange(
        key: PropertyKey, sourceOf: [PropertyKey: PropertyKey], oldRows: [PropertyKey: Row], match: ModelMatch, row: Row
    ) -> Change? {
        guard let old = sourceOf[key] else { return .added }
        if old.name != key.name { return .renamed(from: old.name) }
        if match.entities[old.entity] != key.entity { return .moved(from: old.entity) }
        guard let oldRow = oldRows[old], oldRow.type != row.type || oldRow.keys != row.keys || oldRow.notes != row.notes else { return nil }
        return .changed(difference(from: oldRow, to: row))
    }

    /// What changed in a row, in words: `type int16 → int32`, `now required`, `now UK`,
    /// `no longer indexed`, `now default 'Other'`.
    static func difference(from old: Row, to new: Row) -> String {
        var parts: [String] = []
        if old.type != new.type { parts.append("type \(old.type) → \(new.type)") }
        for note in old.notes where !new.notes.contains(note) { parts.append(note == "optional" ? "now required" : "no longer \(note)") }
        for note in new.notes where !old.notes.contains(note) { parts.append(note == "optional" ? "now optional" : "now \(note)") }
        for key in old.keys where !new.keys.contains(key) { parts.append("no longer \(key)") }
        for key in new.keys where !old.keys.contains(key) { parts.append("now \(key)") }
        return parts.joined(separator: ", ")
    }

    private static func markedLinks(
        before: [Link], after: [Link], match: ModelMatch, sourceOf: [PropertyKey: PropertyKey], boxName: [String: String]
    ) -> [Link] {
        func ends(_ link: Link) -> [PropertyKey] { [link.left.property, link.right.property].compactMap { $0 } }
        var matchedBefore: Set<Int> = []
        var links = after.map { link -> Link in
            var link = link
            let sources = ends(link).compactMap { sourceOf[$0] }
            guard let index = before.indices.first(where: { !matchedBefore.contains($0) && !Set(ends(before[$0])).isDisjoint(with: sources) }) else {
                link.change = .added
                return link
            }
            matchedBefore.insert(index)
            let old = before[index]
            let renamed = zip(ends(link), ends(link).map { sourceOf[$0] }).compactMap { key, source in
                source.flatMap { $0.name != key.name ? $0.name : nil }
            }
            if !renamed.isEmpty {
                link.change = .renamed(from: renamed.joined(separator: ", "))
            } else if Set([old.left.multiplicity, old.right.multiplicity]) != Set([link.left.multiplicity, link.right.multiplicity])
                        || Set([old.left.label, old.right.label]) != Set([link.left.label, link.right.label]) || old.joinTable != link.joinTable {
                link.change = .changed("was " + [old.right.label, old.left.label].compactMap { $0 }.joined(separator: " / "))
            }
            return link
        }
        for (index, link) in before.enumerated() where !matchedBefore.contains(index) {
            var removed = link
            removed.left.entity = boxName[link.left.entity] ?? link.left.entity
            removed.right.entity = boxName[link.right.entity] ?? link.right.entity
            removed.change = .removed
            links.append(removed)
        }
        return links
    }
}
