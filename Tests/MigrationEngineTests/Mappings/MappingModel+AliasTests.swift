import EntityModel
import Foundation
import MigrationEngine
import Testing

/// Mapping files, like model files, refuse YAML anchors and aliases with their file and line, before
/// anything is expanded.
struct MappingModelAliasTests {
    @Test func anAliasInAMappingFileIsRefusedWithItsLine() throws {
        let family = try ModelFamily.load(from: fixture("Notes"))
        let text = """
            source: v1
            destination: v2
            loses: &lost [a, b, c, d, e, f, g, h]
            entityMappings:
              NoteToNote: { source: Note, destination: Note, extra: [*lost, *lost, *lost] }

            """
        #expect {
            _ = try MappingModel.load(yaml: text, file: "Notes/Mappings/v1-to-v2.yaml", family: family, policies: PolicyRegistry())
        } throws: { error in
            (error as? ModelLoadError)?.diagnostics.contains {
                $0.file == "Notes/Mappings/v1-to-v2.yaml" && $0.line == 3 && $0.message.contains("alias")
            } == true
        }
    }
}
