import EntityModel
import TypedSQL

extension MappingModel {
    /// Every required destination value the step's mappings leave empty, found without data, as
    /// Core Data's mapping editor refuses such a mapping up front: each sentence names the mapping,
    /// its file and line, and the attribute or to-one.
    ///
    /// A required column without a default that the step adds to a table a mapping fills (a new
    /// table, or a new column) is set by every mapping into it, from `attributes:`, a same-named
    /// source attribute that a mapping into another table copies, or `relationships:`. A column
    /// that becomes required without a default is set by at least one of them: rows the others
    /// keep may already hold a value. A policy declares what it reads (`transforms`), not what it
    /// writes, and may write any row of its destination's table: tables a policy writes into are
    /// left to it (the validation stage reports a row it left empty).
    func unfilledRequiredValues(_ differ: SchemaDiffer) -> [String] {
        let compiler = MappingCompiler(differ: differ)
        let policyTables = Set(entityMappings.filter { $0.policy != nil }.compactMap { compiler.destinationTable(of: $0.destination)?.name })
        var reasons: [String] = []
        // Columns that become required: the mappings into their entity, and whether one sets them.
        var madeRequired: [(key: String, property: RequiredProperty, mappings: [String], set: Bool)] = []
        for mapping in entityMappings where mapping.policy == nil {
            guard let table = compiler.destinationTable(of: mapping.destination), !policyTables.contains(table.name),
                  let set = compiler.columnsSet(by: mapping) else { continue }
            let place = mapping.location.map { " (\($0))" } ?? ""
            for column in table.columns {
                let key = table.name + "." + column.name
                guard let property = RequiredProperty(column.origin, of: mapping.destination, in: differ.destination) else { continue }
                if differ.columnsOnlyMappingsFill.contains(key), !set.contains(column.name) {
                    reasons.append("mapping \(mapping.name)\(place) " + property.leftEmpty)
                } else if differ.columnsMadeRequiredForMappings.contains(key) {
                    if let index = madeRequired.firstIndex(where: { $0.key == key }) {
                        madeRequired[index].mappings.append(mapping.name)
                        madeRequired[index].set = madeRequired[index].set || set.contains(column.name)
                    } else {
                        madeRequired.append((key, property, [mapping.name], set.contains(column.name)))
                    }
                }
            }
        }
        for column in madeRequired where !column.set {
            let mappings = column.mappings.map { "mapping \($0)" }.joined(separator: ", ")
            reasons.append("\(mappings) \(column.mappings.count == 1 ? "leaves" : "leave") \(column.property.name) as it was, but it becomes "
                + "required without a default: its empty rows would fail; \(column.property.remedy)")
        }
        return reasons
    }
}

/// A required attribute or to-one of a destination entity, in the words of
/// ``MappingModel/unfilledRequiredValues(_:)``.
private struct RequiredProperty {
    /// `Status.name`, named by the entity that declares it.
    let name: String
    let isToOne: Bool
    /// Its key under `attributes:` or `relationships:`.
    let key: String

    /// The property behind a column of `entity`'s table, when `entity` has it.
    init?(_ origin: Column.Origin, of entity: String, in version: ModelVersion) {
        switch origin {
        case let .attribute(declaredBy, attribute)
            where version.allAttributes(of: entity).contains(where: { $0.declaredBy == declaredBy && $0.attribute.name == attribute }):
            (name, isToOne, key) = ("\(declaredBy).\(attribute)", false, attribute)
        case let .relationship(declaredBy, relationship)
            where version.allRelationships(of: entity).contains(where: { $0.declaredBy == declaredBy && $0.relationship.name == relationship }):
            (name, isToOne, key) = ("\(declaredBy).\(relationship)", true, relationship)
        default:
            return nil
        }
    }

    /// What a mapping that does not set it leaves.
    var leftEmpty: String {
        isToOne ? "leaves the required to-one \(name) unlinked: \(remedy)"
            : "leaves \(name) empty, which is required and has no default: \(remedy)"
    }

    var remedy: String {
        isToOne ? "link it under `relationships:` (`\(key): <the mapping that makes its rows>`), or make it optional"
            : "set it under `attributes:` (`\(key): <SQL expression>`), give it a default, or make it optional"
    }
}

extension MappingCompiler {
    /// The destination columns a mapping without a policy sets: its attribute expressions, the
    /// attributes it copies by name, and its relationship mappings. Nil when an expression cannot
    /// be compiled (that error is reported on its own).
    func columnsSet(by mapping: EntityMapping) -> Set<String>? {
        guard let table = destinationTable(of: mapping.destination) else { return nil }
        var selection = Selection()
        let inPlace = isInPlace(mapping)
        guard let values = try? attributeValues(of: mapping, into: &selection, copyUnmentioned: !inPlace) else { return nil }
        var columns = Set(values.map(\.column))
        if inPlace { columns.formUnion(retypeCopies(of: mapping).map(\.destination)) }
        for relationship in mapping.relationships {
            guard let (declaredBy, _) = destination.allRelationships(of: mapping.destination).first(where: { $0.relationship.name == relationship.relationship }),
                  let column = table.column(withOrigin: .relationship(entity: declaredBy, relationship: relationship.relationship)) else { continue }
            columns.insert(column.name)
        }
        return columns
    }
}
