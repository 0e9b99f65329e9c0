import CoreDataImport
import EntityModel
import Foundation
import MigrationEngine
import Testing

/// What one version's elements become, as Xcode writes them.
struct CoreDataModelConverterTests {
    /// Xcode writes a Boolean's default as `0` or `1` (older versions `NO` or `YES`); a new
    /// required flag with a default is then a step Core Data infers, and so does `check`.
    @Test func booleanDefaultsAsXcodeWritesThem() throws {
        let v1 = #"<entity name="Item"><attribute name="name" attributeType="String"/></entity>"#
        let v2 = """
            <entity name="Item">
                <attribute name="name" attributeType="String"/>
                <attribute name="isStaple" attributeType="Boolean" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="isVisible" attributeType="Boolean" defaultValueString="1" usesScalarValueType="YES"/>
                <attribute name="isOld" optional="YES" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
                <attribute name="isNew" optional="YES" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
            </entity>
            """
        let bundle = try ScratchBundle("Shelf", versions: [("Shelf", v1), ("Shelf 2", v2)])
        defer { bundle.remove() }
        let result = try CoreDataImporter.importBundle(at: bundle.url)
        let item = try #require(result.family.latestVersion.entity(named: "Item"))
        #expect(item.attribute(named: "isStaple")?.defaultValue == .bool(false))
        #expect(item.attribute(named: "isVisible")?.defaultValue == .bool(true))
        #expect(item.attribute(named: "isOld")?.defaultValue == .bool(false))
        #expect(item.attribute(named: "isNew")?.defaultValue == .bool(true))
        #expect(!result.notes.contains { $0.description.contains("is not a bool") }, "\(result.notes)")
        let check = try #require(MigrationPlanner(family: result.family).checkFamily().first)
        #expect(check.isPossible, "\(check)")
    }

    /// User info and version hash modifiers on entities, attributes and relationships are noted,
    /// each with its file and line: nothing is left out without a word.
    @Test func userInfoAndVersionHashModifiersAreNotedWherever() throws {
        let entities = """
            <entity name="Item" versionHashModifier="2">
                <attribute name="name" attributeType="String" versionHashModifier="renamed">
                    <userInfo>
                        <entry key="searchable" value="YES"/>
                    </userInfo>
                </attribute>
                <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="items" inverseEntity="Shelf" versionHashModifier="x">
                    <userInfo>
                        <entry key="sync" value="no"/>
                        <entry key="owner" value="me"/>
                    </userInfo>
                </relationship>
            </entity>
            <entity name="Shelf">
                <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="shelf" inverseEntity="Item"/>
            </entity>
            """
        let bundle = try ScratchBundle("Shelf", versions: [("Shelf", entities)])
        defer { bundle.remove() }
        let notes = try CoreDataImporter.importBundle(at: bundle.url).notes.map(\.description)
        let file = "Shelf.xcdatamodeld/Shelf.xcdatamodel/contents"
        for expected in [
            "not expressed: Shelf: user info of Item.name (searchable): the model keeps no user info (\(file):5)",
            "not expressed: Shelf: user info of Item.shelf (owner, sync): the model keeps no user info (\(file):10)",
            "not expressed: Shelf: version hash modifier of Item (2): the model's version hash is computed from its schema; Core Data's modifier has no counterpart (\(file):3)",
            "not expressed: Shelf: version hash modifier of Item.name (renamed): the model's version hash is computed from its schema; Core Data's modifier has no counterpart (\(file):4)",
            "not expressed: Shelf: version hash modifier of Item.shelf (x): the model's version hash is computed from its schema; Core Data's modifier has no counterpart (\(file):9)",
        ] {
            #expect(notes.contains(expected), "no note \(expected) in \(notes)")
        }
    }
}
