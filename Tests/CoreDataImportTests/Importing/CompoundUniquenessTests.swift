import CoreDataImport
import EntityModel
import Foundation
import PostgresTestSupport
import Testing
import TypedSQL

/// Issue 34: a compound uniqueness constraint of Core Data (Xcode's Constraints field holding
/// `name,country`) is the entity's unique group, not a note.
struct CompoundUniquenessTests {
    static let store = """
        <entity name="Store" representedClassName="Store" syncable="YES" codeGenerationType="class">
            <attribute name="name" attributeType="String"/>
            <attribute name="country" attributeType="String"/>
            <attribute name="code" optional="YES" attributeType="String"/>
            <attribute name="opened" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
            <attribute name="budget" optional="YES" attributeType="Decimal" defaultValueString="0.0"/>
            <attribute name="key" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
            <relationship name="chain" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Chain" inverseName="stores" inverseEntity="Chain"/>
            <fetchIndex name="byCountryAndOpened">
                <fetchIndexElement property="country" type="Binary" order="ascending"/>
                <fetchIndexElement property="opened" type="Binary" order="descending"/>
            </fetchIndex>
            <fetchIndex name="byCode">
                <fetchIndexElement property="code" type="Binary" order="ascending"/>
            </fetchIndex>
            <compoundIndexes>
                <compoundIndex>
                    <index value="name"/>
                    <index value="budget"/>
                </compoundIndex>
            </compoundIndexes>
            <uniquenessConstraints>
                <uniquenessConstraint>
                    <constraint value="name"/>
                    <constraint value="country"/>
                </uniquenessConstraint>
                <uniquenessConstraint>
                    <constraint value="chain"/>
                    <constraint value="code"/>
                </uniquenessConstraint>
                <uniquenessConstraint>
                    <constraint value="key"/>
                </uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        <entity name="Chain" representedClassName="Chain" syncable="YES" codeGenerationType="class">
            <attribute name="title" attributeType="String"/>
            <relationship name="stores" toMany="YES" deletionRule="Cascade" destinationEntity="Store" inverseName="chain" inverseEntity="Store"/>
        </entity>
        """

    @Test func aCompoundUniquenessConstraintIsAUniqueGroup() throws {
        let directory = try CoreDataBundleFixture.temporaryDirectory("compound-unique")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = try CoreDataBundleFixture.write(name: "Stores", model: Self.store, in: directory)
        let imported = try CoreDataImporter.importBundle(at: bundle)
        #expect(!imported.notes.contains { $0.element.contains("uniqueness") }, "\(imported.notes)")
        let version = imported.family.latestVersion
        let store = try #require(version.entity(named: "Store"))
        #expect(store.uniques == [["name", "country"], ["chain", "code"]])
        #expect(store.attribute(named: "key")?.isUnique == true)
        // Decimal, Date and UUID are the model's decimal, date and uuid.
        #expect(store.attribute(named: "budget")?.type == .decimal && store.attribute(named: "opened")?.type == .date)
        #expect(store.attribute(named: "key")?.type == .uuid)
        let table = try #require(version.relationalSchema().table(named: "store"))
        #expect(Set(table.uniqueConstraints.map(\.columns)) == [["name", "country"], ["chain_id", "code"], ["key"]])
        #expect(version.yamlText().contains("    uniques:\n      - [name, country]\n      - [chain, code]\n"), "\(version.yamlText())")
        // Fetch indexes of several properties or descending, and compound indexes, are the entity's indexes.
        #expect(!imported.notes.contains { $0.element.contains("index") }, "\(imported.notes)")
        #expect(store.indexes == [EntityIndex(keys: ["country", "opened DESC"]), EntityIndex(keys: ["name", "budget"])])
        #expect(store.attribute(named: "code")?.isIndexed == true)
        let ddl = version.relationalSchema().createStatements(inSchema: "s", quoting: PostgreSQLQuoting()).joined(separator: "\n")
        #expect(ddl.contains(#"ON "s"."store" ("country", "opened" DESC)"#) && ddl.contains(#"ON "s"."store" ("name", "budget")"#), "\(ddl)")
    }
}
