import EntityModel
import Testing

/// A relationship's options that name one of a fixed set (the rules `deleteRule`, `onUpdate`,
/// `joinOnDelete`, `joinOnUpdate`; `joinKey`: JoinTableOptionsTests) report an unknown name with its
/// line, the option and every name it may take, and read a known one.
@Suite("Version files: options with a fixed set of names")
struct VersionFileDecoderChoicesTests {
    @Test(arguments: ["deleteRule", "onUpdate", "joinOnDelete", "joinOnUpdate"])
    func anUnknownRuleIsReportedWithEveryRule(option: String) {
        let found = diagnostics("""
            entities:
              A:
                relationships:
                  bs: { destination: B, toMany: true, inverse: as, \(option): sideways }
              B:
                relationships:
                  as: { destination: A, toMany: true, inverse: bs }
            """)
        #expect(found.contains("v1.yaml:4: relationship A.bs has unknown \(option) \"sideways\"; the rules are: nullify, cascade, deny, noAction."), "\(found)")
    }

    @Test func knownNamesAreRead() throws {
        let model = try ModelVersion(name: "v1", yaml: """
            entities:
              A:
                relationships:
                  bs: { destination: B, toMany: true, inverse: as, joinKey: uniqueIndex, joinOnDelete: deny, joinOnUpdate: cascade }
                  b: { destination: B, deleteRule: cascade, onUpdate: cascade }
              B:
                relationships:
                  as: { destination: A, toMany: true, inverse: bs }
            """, file: "v1.yaml")
        let bs = try #require(model.entity(named: "A")?.relationships.first { $0.name == "bs" })
        #expect(bs.joinKey == .uniqueIndex && bs.joinOnDelete == .deny && bs.joinOnUpdate == .cascade)
        let b = try #require(model.entity(named: "A")?.relationships.first { $0.name == "b" })
        #expect(b.deleteRule == .cascade && b.onUpdate == .cascade)
    }
}
