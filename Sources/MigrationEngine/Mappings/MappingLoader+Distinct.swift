import EntityModel
import TypedSQL
import Yams

/// Reading and checking distinct mappings (`distinct:`, `orderBy:`) and the relationship mappings
/// that link rows to them.
extension MappingLoader {
    /// `distinct:` and `orderBy:` of an entity mapping (`orderBy:` a string or a list of `ORDER BY`
    /// items), their key paths checked against the source version.
    mutating func distinctKey(_ entries: [YAMLReader.Entry], mapping name: String, sourceEntity: String, source: ModelVersion, check: Bool)
        -> EntityMapping.DistinctKey? {
        let orderNode = reader.value("orderBy", in: entries)
        guard let keyNode = reader.value("distinct", in: entries) else {
            if let orderNode {
                reader.report(orderNode, "mapping \(name): orderBy: says which row of each distinct key comes first, so it needs distinct:.")
            }
            return nil
        }
        guard let key = reader.string(keyNode, what: "distinct") else { return nil }
        guard !key.allSatisfy(\.isWhitespace) else {
            reader.report(keyNode, "mapping \(name): distinct: needs a key, an SQL expression over the source row such as lower(source.name).")
            return nil
        }
        if check { checkExpression(key, at: keyNode, mapping: name, from: sourceEntity, in: source) }
        var orderBy: String?
        if let orderNode {
            if let items = orderNode.sequence {
                orderBy = items.compactMap { reader.string($0, what: "an orderBy item") }.joined(separator: ", ")
            } else {
                orderBy = reader.string(orderNode, what: "orderBy")
            }
            if orderBy?.allSatisfy(\.isWhitespace) == true {
                reader.report(orderNode, "mapping \(name): orderBy: is empty; leave it out to take each key's first row by source id.")
                orderBy = nil
            }
            if check, let orderBy { checkExpression(orderBy, at: orderNode, mapping: name, from: sourceEntity, in: source) }
        }
        return EntityMapping.DistinctKey(key: key, orderBy: orderBy, location: reader.location(of: keyNode),
                                         orderByLocation: orderNode.map { reader.location(of: $0) })
    }

    /// Relationship mappings, once every entity mapping is known. One that names a distinct
    /// mapping links to the row made for a key: it names that mapping alone, and its `from:` leads
    /// to a row of the mapping's source entity, whose key is looked up (the short form
    /// `rel: Mapping` means the source row itself). The key path of any other short form is
    /// checked here.
    mutating func resolveDistinctLinks(_ mappings: [EntityMapping], source: ModelVersion, destination: ModelVersion) -> [EntityMapping] {
        let byName = Dictionary(mappings.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return mappings.map { mapping in
            // (A mapping whose entities are wrong was reported already; its key paths are not checked.)
            guard source.entity(named: mapping.source) != nil, destination.entity(named: mapping.destination)?.isAbstract == false else { return mapping }
            let relationships = mapping.relationships.map { relationship -> RelationshipMapping in
                let defaulted = defaultedFroms.contains(mapping.name + "." + relationship.relationship)
                let distinct = relationship.mappings.compactMap { byName[$0] }.filter { $0.distinct != nil }
                guard let target = distinct.first else {
                    if defaulted { checkPath(relationship.from, at: relationship.location, mapping: mapping, in: source) }
                    return relationship
                }
                let from = defaulted ? "source" : relationship.from
                if relationship.mappings.count > 1 {
                    report(relationship.location, mapping, "relationship \(relationship.relationship) names distinct mapping \(target.name) "
                        + "among others; a relationship to a distinct mapping names it alone.")
                }
                guard source.entity(named: target.source) != nil, let path = SourceKeyPath.occurrences(in: from).first?.path,
                      SourceKeyPath.occurrences(in: from).count == 1, from.trimmingCharacters(in: .whitespaces) == (["source"] + path.segments).joined(separator: ".") else {
                    report(relationship.location, mapping, "relationship \(relationship.relationship) links to the \(target.destination) made for a key, "
                        + "so its from: is a key path to a row (source, or through to-one relationships), not \"\(from)\".")
                    return relationship
                }
                if case let .failure(error) = path.resolve(from: mapping.source, in: source) {
                    report(relationship.location, mapping, "\(error) in \"\(from)\".")
                } else {
                    // The row the path leads to: the path through to its id.
                    let row = try? SourceKeyPath(segments: path.segments + ["id"]).resolve(from: mapping.source, in: source).get()
                    let reached = row.map { $0.hops.last?.destination ?? mapping.source }
                    if reached.map({ !source.hierarchy(of: target.source).contains($0) }) ?? true {
                        report(relationship.location, mapping, "relationship \(relationship.relationship) links to the \(target.destination) that mapping "
                            + "\(target.name) made for the key of a row of \(target.source); from: \"\(from)\" leads to "
                            + (reached.map { "a row of \($0)" } ?? "an attribute") + ", not to a row of \(target.source).")
                    }
                }
                return RelationshipMapping(relationship: relationship.relationship, mappings: relationship.mappings, from: from, location: relationship.location)
            }
            return EntityMapping(name: mapping.name, source: mapping.source, destination: mapping.destination, filter: mapping.filter,
                                 attributes: mapping.attributes, relationships: relationships, policy: mapping.policy, loses: mapping.loses,
                                 location: mapping.location, filterLocation: mapping.filterLocation, distinct: mapping.distinct)
        }
    }

    /// A distinct mapping makes its rows in SQL (no policy), in a table other than its source rows'.
    mutating func validateDistinctMappings(_ mappings: [EntityMapping], across pair: VersionPair) {
        for mapping in mappings {
            guard let distinct = mapping.distinct else { continue }
            if let policy = mapping.policy {
                report(distinct.location, mapping, "distinct: makes one \(mapping.destination) per key in SQL, so it cannot also have policy \(policy); "
                    + "de-duplicate in the policy (context.lookupOrCreate) or drop the policy.")
            }
            if isInPlace(mapping, across: pair) {
                report(distinct.location, mapping, "distinct: makes one \(mapping.destination) per key, but \(mapping.source) rows are stored in the "
                    + "\(mapping.destination) table in \(pair.destination.name): a distinct mapping fills another entity's table.")
            }
        }
    }

    /// Whether the mapping keeps its rows in their table: the source entity's table became the
    /// destination entity's.
    func isInPlace(_ mapping: EntityMapping, across pair: VersionPair) -> Bool {
        let (source, destination) = (pair.source, pair.destination)
        guard source.entity(named: mapping.source) != nil, destination.entity(named: mapping.destination) != nil,
              let mapped = Correspondence.adjacent(pair).entities[source.rootEntity(of: mapping.source)],
              destination.entity(named: mapped) != nil else { return false }
        return destination.rootEntity(of: mapped) == destination.rootEntity(of: mapping.destination)
    }

    /// Reports each key path of `path` that does not resolve from the mapping's source entity.
    private mutating func checkPath(_ path: String, at location: SourceLocation?, mapping: EntityMapping, in source: ModelVersion) {
        for (_, keyPath) in SourceKeyPath.occurrences(in: path) {
            if case let .failure(error) = keyPath.resolve(from: mapping.source, in: source) {
                report(location, mapping, "\(error) in \"\(path)\".")
            }
        }
    }

    /// `file:line: mapping Name: message`, at `location` or else at the mapping.
    private mutating func report(_ location: SourceLocation?, _ mapping: EntityMapping, _ message: String) {
        reader.diagnostics.append(ModelDiagnostic(file: reader.file, line: location?.line ?? mapping.location?.line ?? 0, message: "mapping \(mapping.name): \(message)"))
    }
}
