import EntityModel
import Foundation

extension CoreDataModelConverter {
    /// Core Data's attribute types and the model's.
    static let types: [String: AttributeType] = [
        "Integer 16": .int16, "Integer 32": .int32, "Integer 64": .int64, "Decimal": .decimal, "Double": .double,
        "Float": .float, "String": .string, "Boolean": .bool, "Date": .date, "Binary": .binary, "UUID": .uuid,
    ]

    /// Core Data's delete rules (`deletionRule`) and the model's.
    static let deleteRules: [String: DeleteRule] = ["Nullify": .nullify, "Cascade": .cascade, "Deny": .deny, "No Action": .noAction]

    /// Seconds from 1970 to 2001-01-01, Core Data's reference date for `defaultDateTimeInterval`.
    static let referenceDateOffset: TimeInterval = 978_307_200

    mutating func convertAttribute(_ element: CoreDataXML.Element, of entity: String, unique: Set<String>, indexed: Set<String>) -> Attribute? {
        guard let original = element.attributes["name"] else { return nil }
        let name = modelNameOf(original, in: entity), what = "\(entity).\(original)"
        if element.flag("transient") {
            note(.notExpressed, what, "a transient attribute is not stored", element)
            return nil
        }
        let typeName = element.attributes["attributeType"] ?? "Undefined"
        let type: AttributeType
        if let known = Self.types[typeName] {
            type = known
        } else if typeName == "URI" {
            type = .string
            note(.adapted, what, "a URI is stored as its text (string)", element)
        } else if typeName == "Transformable" {
            let custom = element.attributes["customClassName"] ?? ""
            let isCollection = custom.hasPrefix("[") || ["NSArray", "NSDictionary"].contains(custom)
            type = isCollection ? .json : .binary
            note(.adapted, what, isCollection
                ? "a Transformable \(custom) is stored as json; its values move as JSON, not as archived bytes"
                : "a Transformable\(custom.isEmpty ? "" : " " + custom) is stored as the archived bytes (binary)", element)
        } else {
            note(.notExpressed, what, "the attribute type \(typeName) has no counterpart in the model", element)
            return nil
        }
        if element.flag("derived") {
            note(.adapted, what, "a derived attribute is stored as a plain attribute; its expression \(element.attributes["derivationExpression"] ?? "") is not kept", element)
        }
        for rule in ["minValueString", "maxValueString", "regularExpressionString"] where element.attributes[rule] != nil {
            note(.notExpressed, what, "the validation rule \(rule)=\(element.attributes[rule]!) is Core Data's, not the database's", element)
        }
        noteUserInfoAndHashModifier(of: element, what: what)
        if element.flag("allowsExternalBinaryDataStorage") {
            note(.adapted, what, "external binary storage is Core Data's; the bytes are stored in the column", element)
        }
        return Attribute(
            name: name, type: type, isOptional: element.flag("optional"), defaultValue: defaultValue(of: element, type: type, what: what),
            isUnique: unique.contains(original), isIndexed: !unique.contains(original) && (element.flag("indexed") || indexed.contains(original)),
            location: location(of: element)
        )
    }

    private mutating func defaultValue(of element: CoreDataXML.Element, type: AttributeType, what: String) -> DefaultValue? {
        if type == .date, let interval = element.attributes["defaultDateTimeInterval"].flatMap(Double.init) {
            let date = Date(timeIntervalSince1970: interval + Self.referenceDateOffset)
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = date.timeIntervalSince1970.rounded(.down) == date.timeIntervalSince1970
                ? [.withInternetDateTime] : [.withInternetDateTime, .withFractionalSeconds]
            return DefaultValue.parsing(formatter.string(from: date), as: type)
        }
        guard var text = element.attributes["defaultValueString"] else { return nil }
        // Xcode writes a Boolean's default as 0 or 1 (versions before Xcode 8: NO or YES).
        if type == .bool { text = ["YES": "true", "NO": "false", "1": "true", "0": "false"][text] ?? text }
        guard let value = DefaultValue.parsing(text, as: type) else {
            note(.notExpressed, what, "the default \(text) is not a \(type.rawValue)", element)
            return nil
        }
        return value
    }

    mutating func convertRelationship(_ element: CoreDataXML.Element, of entity: String) -> Relationship? {
        guard let original = element.attributes["name"] else { return nil }
        let what = "\(entity).\(original)"
        if element.flag("transient") {
            note(.notExpressed, what, "a transient relationship is not stored", element)
            return nil
        }
        guard let destination = element.attributes["destinationEntity"] else {
            note(.notExpressed, what, "it has no destination entity", element)
            return nil
        }
        noteUserInfoAndHashModifier(of: element, what: what)
        let isToMany = element.flag("toMany")
        if element.flag("ordered") {
            note(.adapted, what, "an ordered to-many is stored unordered: the model keeps no order", element)
        }
        let rule = element.attributes["deletionRule"] ?? "Nullify"
        if Self.deleteRules[rule] == nil { note(.adapted, what, "the delete rule \(rule) is carried as nullify", element) }
        let count = { (key: String) -> Int? in element.attributes[key].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } }
        return Relationship(
            name: modelNameOf(original, in: entity), destination: destination, isToMany: isToMany,
            inverse: element.attributes["inverseName"].map { modelNameOf($0, in: element.attributes["inverseEntity"] ?? destination) },
            deleteRule: Self.deleteRules[rule] ?? .nullify, isOptional: element.flag("optional"),
            minCount: isToMany ? count("minCount") : nil, maxCount: isToMany ? count("maxCount") : nil, location: location(of: element)
        )
    }

    /// Notes an element's `userInfo` (by its keys) and `versionHashModifier`, which the model does
    /// not keep: `what` is the element (`Recipe`, `Recipe.name`).
    mutating func noteUserInfoAndHashModifier(of element: CoreDataXML.Element, what: String) {
        for info in element.children(named: "userInfo") {
            let keys = info.children(named: "entry").compactMap { $0.attributes["key"] }.sorted()
            note(.notExpressed, "user info of \(what)\(keys.isEmpty ? "" : " (\(keys.joined(separator: ", ")))")", "the model keeps no user info", info)
        }
        if let modifier = element.attributes["versionHashModifier"], !modifier.isEmpty {
            note(.notExpressed, "version hash modifier of \(what) (\(modifier))",
                 "the model's version hash is computed from its schema; Core Data's modifier has no counterpart", element)
        }
    }

    /// Attributes with a uniqueness constraint of their own, and the groups of properties that a
    /// compound uniqueness constraint makes unique together (the entity's `uniques:`).
    func uniqueAttributes(of entity: CoreDataXML.Element) -> (single: Set<String>, groups: [[String]]) {
        var unique: Set<String> = [], groups: [[String]] = []
        for constraints in entity.children(named: "uniquenessConstraints") {
            for constraint in constraints.children(named: "uniquenessConstraint") {
                let properties = constraint.children(named: "constraint").compactMap { $0.attributes["value"] }
                if properties.count == 1 {
                    unique.insert(properties[0])
                } else if properties.count > 1 {
                    groups.append(properties)
                }
            }
        }
        return (unique, groups)
    }

    /// Attributes with a fetch index of their own (one element, binary, ascending), and the
    /// entity's other indexes: fetch indexes of several properties or in descending order, and
    /// compound indexes (the entity's `indexes:`). An R-tree index or one on an expression is noted.
    mutating func indexedAttributes(of entity: CoreDataXML.Element, entity name: String) -> (single: Set<String>, indexes: [EntityIndex]) {
        var indexed: Set<String> = [], indexes: [EntityIndex] = []
        for index in entity.children(named: "fetchIndex") {
            let elements = index.children(named: "fetchIndexElement")
            let keys = elements.compactMap { element -> String? in
                guard let property = element.attributes["property"], (element.attributes["type"] ?? "Binary") == "Binary" else { return nil }
                return property + (element.attributes["order"] == "descending" ? " DESC" : "")
            }
            if keys.count != elements.count || keys.isEmpty {
                note(.notExpressed, "fetch index \(name).\(index.attributes["name"] ?? "")",
                     "the model's indexes are B-tree indexes on properties (not R-tree indexes or expressions)", index)
            } else if keys.count == 1, !keys[0].hasSuffix(" DESC") {
                indexed.insert(keys[0])
            } else {
                indexes.append(EntityIndex(keys: keys))
            }
        }
        for compound in entity.children(named: "compoundIndexes") {
            for index in compound.children(named: "compoundIndex") {
                let keys = index.children(named: "index").compactMap { $0.attributes["value"] }
                if keys.count > 1 { indexes.append(EntityIndex(keys: keys)) } else if let key = keys.first { indexed.insert(key) }
            }
        }
        return (indexed, indexes)
    }
}
