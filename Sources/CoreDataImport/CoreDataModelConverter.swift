import EntityModel
import Foundation

/// Turns one Core Data model (`contents`) into the model's entities: entities with `parentEntity`
/// and `isAbstract`; attributes with their types, `optional`, `defaultValueString`, indexes and
/// uniqueness constraints (of several properties: the entity's `uniques`); relationships with `toMany`, `inverseName`,
/// `deletionRule` and counts. What has no place in the model (fetched properties, fetch requests,
/// configurations, transient properties, validation rules, …) becomes a note.
struct CoreDataModelConverter {
    let xml: CoreDataXML
    let file: String
    var notes: [ImportNote] = []
    /// The model name of each property whose Core Data name is reserved, by entity and Core Data name.
    private var renamed: [String: [String: String]] = [:]

    /// One converted version: its entities, and the Core Data renaming identifiers (`elementID`)
    /// of entities (`Recipe`) and properties (`Recipe.name`).
    struct Converted {
        var entities: [Entity]
        var elementIDs: [String: String]
    }

    init(xml: CoreDataXML, file: String) {
        self.xml = xml
        self.file = file
    }

    mutating func convert() -> Converted {
        let entities = xml.root.children(named: "entity")
        for entity in entities {
            guard let name = entity.attributes["name"] else { continue }
            var taken = Set<String>()
            for property in entity.children where property.name == "attribute" || property.name == "relationship" {
                guard let original = property.attributes["name"] else { continue }
                if original.hasPrefix("_") || SQLName.isReserved(original) || SQLName.reservedColumns.contains(original.snakeCased) {
                    let base = original.snakeCased == SQLName.primaryKeyColumn ? "identifier" : original.trimmingCharacters(in: ["_"]) + "Name"
                    let replacement = uniqueName(base.isEmpty ? "value" : base, avoiding: entity, taken: &taken)
                    renamed[name, default: [:]][original] = replacement
                    note(.adapted, "\(name).\(original)", "the model owns the columns id and entity, and names starting with _; it is \(replacement)", property)
                }
            }
        }
        var converted = Converted(entities: [], elementIDs: [:])
        for entity in entities {
            guard let name = entity.attributes["name"] else {
                note(.notExpressed, "an entity", "it has no name", entity)
                continue
            }
            converted.entities.append(convertEntity(entity, named: name, elementIDs: &converted.elementIDs))
        }
        for other in xml.root.children where other.name != "entity" && other.name != "elements" {
            let what = other.attributes["name"].map { "\(other.name) \($0)" } ?? other.name
            note(.notExpressed, what, "the model has entities, attributes and relationships only", other)
        }
        return converted
    }

    private mutating func convertEntity(_ element: CoreDataXML.Element, named name: String, elementIDs: inout [String: String]) -> Entity {
        var entity = Entity(name: name, parent: element.attributes["parentEntity"], isAbstract: element.flag("isAbstract"), location: location(of: element))
        if let id = element.attributes["elementID"] { elementIDs[name] = id }
        noteUserInfoAndHashModifier(of: element, what: name)
        let (unique, uniqueGroups) = uniqueAttributes(of: element)
        entity.uniques = uniqueGroups
        let (indexed, indexes) = indexedAttributes(of: element, entity: name)
        entity.indexes = indexes
        // Gathered here and set once: each change to an entity's list sorts it again.
        var attributes: [Attribute] = [], relationships: [Relationship] = []
        for child in element.children {
            switch child.name {
            case "attribute":
                guard let attribute = convertAttribute(child, of: name, unique: unique, indexed: indexed) else { continue }
                if let id = child.attributes["elementID"] { elementIDs["\(name).\(attribute.name)"] = id }
                attributes.append(attribute)
            case "relationship":
                guard let relationship = convertRelationship(child, of: name) else { continue }
                if let id = child.attributes["elementID"] { elementIDs["\(name).\(relationship.name)"] = id }
                relationships.append(relationship)
            case "uniquenessConstraints", "fetchIndex", "compoundIndexes", "userInfo":
                continue
            default:
                let what = child.attributes["name"].map { "\(child.name) \(name).\($0)" } ?? "\(child.name) of \(name)"
                note(.notExpressed, what, "the model has stored attributes and relationships only", child)
            }
        }
        entity.attributes = attributes
        entity.relationships = relationships
        return entity
    }

    /// The model's name for the Core Data property `original` of `entity`.
    func modelNameOf(_ original: String, in entity: String) -> String {
        renamed[entity]?[original] ?? original
    }

    private func uniqueName(_ base: String, avoiding entity: CoreDataXML.Element, taken: inout Set<String>) -> String {
        let existing = Set(entity.children.compactMap { $0.attributes["name"]?.snakeCased })
        var candidate = base, number = 2
        while existing.contains(candidate.snakeCased) || taken.contains(candidate.snakeCased) {
            candidate = base + String(number)
            number += 1
        }
        taken.insert(candidate.snakeCased)
        return candidate
    }

    /// Where `element` is, for the messages of the model's validation.
    func location(of element: CoreDataXML.Element) -> SourceLocation {
        SourceLocation(file: file, line: element.line)
    }

    mutating func note(_ kind: ImportNote.Kind, _ element: String, _ reason: String, _ at: CoreDataXML.Element) {
        notes.append(ImportNote(kind, element, "\(reason) (\(file):\(at.line))"))
    }
}
