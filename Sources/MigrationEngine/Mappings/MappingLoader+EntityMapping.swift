import EntityModel
import Yams

extension MappingLoader {
    mutating func entityMapping(_ node: Node, source: ModelVersion, destination: ModelVersion) -> EntityMapping? {
        guard let entries = reader.entries(of: node, what: "an entity mapping") else { return nil }
        reader.checkKeys(entries, allowed: ["name", "source", "destination", "filter", "distinct", "orderBy", "attributes", "relationships", "policy", "loses"], in: "an entity mapping")
        guard let nameNode = reader.value("name", in: entries), let name = reader.string(nameNode, what: "name"),
              let sourceNode = reader.value("source", in: entries), let sourceEntity = reader.string(sourceNode, what: "source"),
              let destinationNode = reader.value("destination", in: entries), let destinationEntity = reader.string(destinationNode, what: "destination") else {
            reader.report(node, "an entity mapping needs `name`, `source` and `destination`.")
            return nil
        }
        var valid = true
        if source.entity(named: sourceEntity) == nil {
            reader.report(sourceNode, "mapping \(name): version \(source.name) has no entity \"\(sourceEntity)\".")
            valid = false
        }
        if destination.entity(named: destinationEntity) == nil {
            reader.report(destinationNode, "mapping \(name): version \(destination.name) has no entity \"\(destinationEntity)\".")
            valid = false
        } else if destination.entity(named: destinationEntity)?.isAbstract == true {
            reader.report(destinationNode, "mapping \(name): \(destinationEntity) is abstract; map to a concrete entity.")
            valid = false
        }
        var filter: String?
        let filterNode = reader.value("filter", in: entries)
        if let filterNode {
            filter = reader.string(filterNode, what: "filter")
            if valid, let filter { checkExpression(filter, at: filterNode, mapping: name, from: sourceEntity, in: source) }
        }
        let distinct = distinctKey(entries, mapping: name, sourceEntity: sourceEntity, source: source, check: valid)
        var policy: String?
        if let policyNode = reader.value("policy", in: entries) {
            policy = reader.string(policyNode, what: "policy")
            if let policy, !policies.contains(policy) {
                let known = policies.names
                reader.report(policyNode, "mapping \(name): no migration policy named \"\(policy)\" is registered\(known.isEmpty ? "" : " (registered: \(known.joined(separator: ", ")))").")
            }
        }
        var attributes: [EntityMapping.AttributeExpression] = []
        if let attributesNode = reader.value("attributes", in: entries), let list = reader.entries(of: attributesNode, what: "attributes") {
            for entry in list {
                guard let expression = reader.string(entry.value, what: "the value expression of \(entry.key)") else { continue }
                if valid, !destination.allAttributes(of: destinationEntity).contains(where: { $0.attribute.name == entry.key }) {
                    let names = destination.allAttributes(of: destinationEntity).map(\.attribute.name).sorted()
                    reader.report(entry.keyNode, "mapping \(name): \(destinationEntity) in \(destination.name) has no attribute \"\(entry.key)\""
                        + (names.isEmpty ? "." : " (it has \(names.joined(separator: ", ")))."))
                }
                if valid { checkExpression(expression, at: entry.value, mapping: name, from: sourceEntity, in: source) }
                attributes.append(.init(attribute: entry.key, expression: expression, location: reader.location(of: entry.value)))
            }
        }
        var relationships: [RelationshipMapping] = []
        if let relationshipsNode = reader.value("relationships", in: entries), let list = reader.entries(of: relationshipsNode, what: "relationships") {
            for entry in list {
                if let mapping = relationshipMapping(entry, mapping: name, sourceEntity: sourceEntity, destinationEntity: destinationEntity,
                                                     source: source, destination: destination, check: valid) {
                    relationships.append(mapping)
                }
            }
        }
        var mapping = EntityMapping(name: name, source: sourceEntity, destination: destinationEntity, filter: filter, attributes: attributes,
                                    relationships: relationships, policy: policy, location: reader.location(of: node),
                                    filterLocation: filterNode.map { reader.location(of: $0) }, distinct: distinct)
        if let losesNode = reader.value("loses", in: entries) {
            mapping.loses = losses(losesNode, mapping: name, sourceEntity: sourceEntity, source: source, check: valid)
        }
        return mapping
    }

    /// `loses:` of an entity mapping: sentences, or `{ attribute, rows, reason }` entries.
    mutating func losses(_ node: Node, mapping name: String, sourceEntity: String, source: ModelVersion, check: Bool) -> [PolicyLoss] {
        let items = node.sequence.map(Array.init) ?? [node]
        var result: [PolicyLoss] = []
        for item in items {
            if let text = item.scalar?.string {
                result.append(PolicyLoss(reason: text))
                continue
            }
            guard let fields = reader.entries(of: item, what: "a loss") else { continue }
            reader.checkKeys(fields, allowed: ["attribute", "rows", "reason"], in: "a loss")
            guard let reasonNode = reader.value("reason", in: fields), let reason = reader.string(reasonNode, what: "reason") else {
                reader.report(item, "mapping \(name): a loss needs a `reason`.")
                continue
            }
            var loss = PolicyLoss(reason: reason)
            if let attributeNode = reader.value("attribute", in: fields), let attribute = reader.string(attributeNode, what: "attribute") {
                if check, !source.allAttributes(of: sourceEntity).contains(where: { $0.attribute.name == attribute }) {
                    reader.report(attributeNode, "mapping \(name): \(sourceEntity) in \(source.name) has no attribute \"\(attribute)\".")
                }
                loss.attribute = attribute
            }
            if let rowsNode = reader.value("rows", in: fields), let rows = reader.string(rowsNode, what: "rows") {
                if check { checkExpression(rows, at: rowsNode, mapping: name, from: sourceEntity, in: source) }
                loss.rows = rows
            }
            result.append(loss)
        }
        return result
    }

    /// `relationship: MappingName`, or `relationship: { mappings: [A, B], from: source.path }`.
    mutating func relationshipMapping(
        _ entry: YAMLReader.Entry, mapping name: String, sourceEntity: String, destinationEntity: String,
        source: ModelVersion, destination: ModelVersion, check: Bool
    ) -> RelationshipMapping? {
        var mappings: [String] = []
        var from = "source." + entry.key
        var fromNode: Node?
        if let single = entry.value.scalar?.string {
            mappings = [single]
        } else if let fields = reader.entries(of: entry.value, what: "the relationship mapping of \(entry.key)") {
            reader.checkKeys(fields, allowed: ["mappings", "mapping", "from"], in: "a relationship mapping")
            if let node = reader.value("mapping", in: fields), let single = reader.string(node, what: "mapping") { mappings = [single] }
            if let node = reader.value("mappings", in: fields) { mappings = node.sequence?.compactMap { reader.string($0, what: "mappings") } ?? [] }
            if let node = reader.value("from", in: fields), let path = reader.string(node, what: "from") {
                from = path
                fromNode = node
            }
        }
        guard !mappings.isEmpty else {
            reader.report(entry.keyNode, "mapping \(name): relationship \(entry.key) names no mapping.")
            return nil
        }
        if check {
            if let relationship = destination.allRelationships(of: destinationEntity).first(where: { $0.relationship.name == entry.key })?.relationship {
                if relationship.isToMany {
                    reader.report(entry.keyNode, "mapping \(name): \(destinationEntity).\(entry.key) is to-many; map the to-one side of the relationship.")
                }
            } else {
                reader.report(entry.keyNode, "mapping \(name): \(destinationEntity) in \(destination.name) has no relationship \"\(entry.key)\".")
            }
            // A short form's key path is checked once the file is read: naming a distinct mapping,
            // it means the source row itself (see `resolveDistinctLinks`).
            if fromNode != nil { checkExpression(from, at: entry.value, mapping: name, from: sourceEntity, in: source) }
        }
        if fromNode == nil { defaultedFroms.insert(name + "." + entry.key) }
        return RelationshipMapping(relationship: entry.key, mappings: mappings, from: from, location: reader.location(of: entry.value))
    }

    /// Reports every `source…` key path in `expression` that does not resolve.
    mutating func checkExpression(_ expression: String, at node: Node, mapping: String, from entity: String, in version: ModelVersion) {
        for (_, path) in SourceKeyPath.occurrences(in: expression) {
            if case let .failure(error) = path.resolve(from: entity, in: version) {
                reader.report(node, "mapping \(mapping): \(error) in \"\(expression)\".")
            }
        }
    }

    /// Names that relationship mappings refer to must exist; names must be unique. `unloaded`: the
    /// names of entity mappings that did not load (their mistake is reported already).
    mutating func validateReferences(_ mappings: [EntityMapping], source: ModelVersion, unloaded: Set<String> = []) {
        var seen: Set<String> = []
        for mapping in mappings {
            if !seen.insert(mapping.name).inserted {
                reader.diagnostics.append(ModelDiagnostic(file: reader.file, line: mapping.location?.line ?? 0, message: "two entity mappings are named \(mapping.name)."))
            }
        }
        for mapping in mappings {
            for relationship in mapping.relationships {
                for target in relationship.mappings where !seen.contains(target) && !unloaded.contains(target) {
                    reader.diagnostics.append(ModelDiagnostic(file: reader.file, line: relationship.location?.line ?? 0,
                        message: "mapping \(mapping.name): relationship \(relationship.relationship) refers to mapping \"\(target)\", which this file does not define."))
                }
            }
        }
    }

    /// A policy mapping into another entity's table creates its rows in Swift: attribute
    /// expressions and relationship mappings of its own would never run, and other mappings
    /// cannot reach its rows from SQL (a policy finds them with `context.destinations`).
    mutating func validatePolicyMappings(_ mappings: [EntityMapping], across pair: VersionPair) {
        func inPlace(_ mapping: EntityMapping) -> Bool { isInPlace(mapping, across: pair) }
        func report(_ location: SourceLocation?, _ fallback: SourceLocation?, _ message: String) {
            reader.diagnostics.append(ModelDiagnostic(file: reader.file, line: location?.line ?? fallback?.line ?? 0, message: message))
        }
        let byName = Dictionary(mappings.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for mapping in mappings {
            let createsRowsInSwift = mapping.policy != nil && !inPlace(mapping)
            if createsRowsInSwift, let first = mapping.attributes.first {
                report(first.location, mapping.location, "mapping \(mapping.name): policy \(mapping.policy!) creates the \(mapping.destination) rows itself, "
                    + "so attribute expressions would never run; set the values in the policy.")
            }
            for relationship in mapping.relationships {
                if createsRowsInSwift {
                    report(relationship.location, mapping.location, "mapping \(mapping.name): policy \(mapping.policy!) creates the \(mapping.destination) rows itself, "
                        + "so it must set relationship \(relationship.relationship) too (context.link, or the id in context.insert).")
                    continue
                }
                for name in relationship.mappings {
                    guard let target = byName[name], let policy = target.policy, !inPlace(target) else { continue }
                    report(relationship.location, mapping.location, "mapping \(mapping.name): relationship \(relationship.relationship) refers to mapping \(name), "
                        + "whose rows policy \(policy) creates; set the relationship in a policy, with context.destinations(of:mapping:).")
                }
            }
        }
    }
}
