import EntityModel
import MigrationEngine
import Testing

/// A step that has a mapping model but is refused for another reason says what was found and why:
/// the mapping file, its mappings, and each reason; never "there is no mapping model … add one"
/// (issue 34, found with keyed mappings: the old message sent users to write a file they had).
struct MappedStepRefusalTests {
    static let v1 = """
        entities:
          Item:
            attributes:
              name: { type: string }
              d: { type: string, optional: true }
          Other:
            attributes:
              a: { type: string, optional: true }
        """
    /// Other.a becomes required with no default: the inference around the mapping cannot fill it.
    static let v2 = """
        entities:
          Item:
            attributes:
              name: { type: string }
              n: { type: int32, default: 0 }
          Other:
            attributes:
              a: { type: string }
        """
    static let mapping = """
        source: v1
        destination: v2
        entityMappings:
          - name: ItemToItem
            source: Item
            destination: Item
            attributes:
              n: "coalesce(length(source.d), 0)"
        """

    @Test func theRefusalNamesTheMappingFileItsMappingsAndTheReason() throws {
        let family = try ModelFamily(name: "Refused", versions: [("v1", Self.v1), ("v2", Self.v2)].map {
            try ModelVersion(name: $0.0, yaml: $0.1, file: "Refused/\($0.0).yaml")
        })
        let model = try MappingModel.load(yaml: Self.mapping, file: "Refused/Mappings/v1-to-v2.yaml", family: family, policies: PolicyRegistry())
        do {
            let plan = try MigrationPlanner(family: family, mappings: [model]).plan(from: "v1", to: "v2")
            Issue.record("planned: \(plan.steps.map(\.kind))")
        } catch {
            let text = "\(error)"
            #expect(!text.contains("there is no mapping model"), "\(text)")
            #expect(!text.contains("Add a mapping model"), "\(text)")
            for part in ["cannot migrate v1 → v2", "the mapping model Refused/Mappings/v1-to-v2.yaml", "ItemToItem",
                         "attribute Other.a becomes required but has no default value"] {
                #expect(text.contains(part), "\(part) not in \(text)")
            }
        }
        // Without the mapping model, the old advice stands.
        do {
            _ = try MigrationPlanner(family: family).plan(from: "v1", to: "v2")
            Issue.record("planned without a mapping model")
        } catch {
            #expect("\(error)".contains("there is no mapping model for this pair and direction"), "\(error)")
        }
    }
}
