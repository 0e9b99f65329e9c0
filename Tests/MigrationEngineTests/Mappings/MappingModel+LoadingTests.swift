import EntityModel
import Foundation
import MigrationEngine
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Mapping files are validated against both model versions and the registered policies when they
/// load, before any tenant is touched; every mistake is reported with its file and line, together.
@Suite("Mapping files: load-time validation")
struct MappingModelLoadingTests {
    static let notes = try! ModelFamily.load(from: fixture("Notes"))

    /// (line, text the message must contain) for each MISTAKE marker of the invalid Notes mapping.
    static func expectedMistakes(in text: String) -> [(line: Int, message: String)] {
        [
            (line(of: "unknown entity", in: text), "mapping GhostToAttachment: version v1 has no entity \"Ghost\"."),
            (line(of: "unregistered policy", in: text), "mapping NoteToNote: no migration policy named \"NoteCleanup\" is registered"),
            (line(of: "unknown attribute", in: text), "mapping NoteToAttachment: Attachment in v2 has no attribute \"colour\" (it has caption, image, width)."),
            (line(of: "key path to a missing attribute", in: text), "mapping NoteToAttachment: Note has no attribute or relationship \"titel\" (it has body, folder, image, title) in \"upper(source.titel)\"."),
            (line(of: "unknown mapping", in: text), "mapping NoteToAttachment: relationship note refers to mapping \"NoteToNoteTypo\", which this file does not define."),
        ]
    }

    @Test func everyMistakeIsReportedWithItsFileAndLine() throws {
        let path = "Invalid/notes-v1-to-v2.yaml"
        let text = try String(contentsOf: fixture(path), encoding: .utf8)
        do {
            _ = try MappingModel.load(yaml: text, file: "Notes/Mappings/v1-to-v2.yaml", family: Self.notes, policies: PolicyRegistry())
            Issue.record("the file has five mistakes")
        } catch {
            let expected = Self.expectedMistakes(in: text)
            #expect(expected.allSatisfy { $0.line > 0 })
            #expect(error.diagnostics.count == expected.count, "\(error)")
            for (line, message) in expected {
                #expect(error.diagnostics.contains { $0.file == "Notes/Mappings/v1-to-v2.yaml" && $0.line == line && $0.message.contains(message) },
                        "no diagnostic at line \(line): \(message)\n\(error)")
                #expect(error.description.contains("Notes/Mappings/v1-to-v2.yaml:\(line): \(message)"))
            }
        }
    }

    /// Loading a family's mapping directory reports the mistakes of all its files at once, and the
    /// facade refuses to start with them.
    @Test func mistakesInSeveralFilesAreReportedTogether() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mapping-tests-\(UUID().uuidString)/Notes")
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("Mappings"), withIntermediateDirectories: true)
        for file in ["family.yaml", "v1.yaml", "v2.yaml"] {
            try FileManager.default.copyItem(at: fixture("Notes/\(file)"), to: directory.appendingPathComponent(file))
        }
        try FileManager.default.copyItem(at: fixture("Invalid/notes-v1-to-v2.yaml"), to: directory.appendingPathComponent("Mappings/v1-to-v2.yaml"))
        try FileManager.default.copyItem(at: fixture("Invalid/tracks-v1-to-v3.yaml"), to: directory.appendingPathComponent("Mappings/v1-to-v3.yaml"))
        let family = try ModelFamily.load(from: directory)
        let text = try String(contentsOf: fixture("Invalid/notes-v1-to-v2.yaml"), encoding: .utf8)
        let versionText = try String(contentsOf: fixture("Invalid/tracks-v1-to-v3.yaml"), encoding: .utf8)

        do {
            _ = try MappingModel.loadAll(for: family, policies: PolicyRegistry())
            Issue.record("two files with mistakes must not load")
        } catch {
            let lines = error.description.components(separatedBy: "\n")
            #expect(lines.count == 6, "\(error)")
            for (line, message) in Self.expectedMistakes(in: text) {
                #expect(lines.contains { $0.hasPrefix("Notes/Mappings/v1-to-v2.yaml:\(line): ") && $0.contains(message) }, "\(error)")
            }
            #expect(lines.contains("Notes/Mappings/v1-to-v3.yaml:\(line(of: "unknown version", in: versionText)): unknown version \"v3\"; the family has v1, v2."), "\(error)")
        }
        #expect(throws: ModelLoadError.self) {
            try TenantMigrator(connectionString: "", familyDirectory: directory, policies: PolicyRegistry())
        }
    }

    /// A policy mapping into another entity's table creates its rows in Swift: expressions and
    /// relationship mappings on it would never run, which is reported at load time.
    @Test func aPolicyMakingRowsElsewhereMustSetThemItself() throws {
        struct Nothing: MigrationPolicy {}
        var policies = PolicyRegistry()
        policies.register("NoteImageToAttachment") { Nothing() }
        let path = "Invalid/notes-policy-into-attachment.yaml"
        let text = try String(contentsOf: fixture(path), encoding: .utf8)
        do {
            _ = try MappingModel.load(yaml: text, file: path, family: Self.notes, policies: policies)
            Issue.record("a policy's rows cannot take attribute expressions")
        } catch {
            #expect(error.diagnostics.map(\.line) == [line(of: "attributes of a policy's rows", in: text), line(of: "relationship of a policy's rows", in: text),
                                                   line(of: "relationship to a policy's rows", in: text)], "\(error)")
            #expect(error.description.contains("mapping NoteToAttachment: policy NoteImageToAttachment creates the Attachment rows itself, so attribute expressions would never run"))
            #expect(error.description.contains("so it must set relationship note too"))
            #expect(error.description.contains("mapping NoteToNoteAgain: relationship folder refers to mapping NoteToFolder, whose rows policy NoteImageToAttachment creates"))
        }
        // Without them, it loads.
        let fixed = text.components(separatedBy: "\n").filter { !$0.contains("MISTAKE") && !$0.contains("attributes:") && !$0.contains("relationships:") }
        let model = try MappingModel.load(yaml: fixed.joined(separator: "\n"), file: path, family: Self.notes, policies: policies)
        #expect(model.entityMappings.map(\.name) == ["NoteToNote", "NoteToAttachment", "NoteToFolder", "NoteToNoteAgain"])
    }

    /// The Recipes family's own mapping files load, and name what they lose.
    @Test func theRecipesMappingsLoad() throws {
        let family = try recipesFamily()
        let models = try MappingModel.loadAll(for: family, policies: RecipesPolicies.registry)
        #expect(models.map { "\($0.sourceVersion)→\($0.destinationVersion)" }.sorted() == ["v2→v3", "v3→v2"])
        let down = try #require(models.first { $0.sourceVersion == "v3" })
        #expect(down.loses.isEmpty)  // the types come back from the archive (issue 10)
        #expect(down.direction == .down)
        // Without its policies, v2 → v3 does not load.
        #expect(throws: ModelLoadError.self) { try MappingModel.loadAll(for: family, policies: PolicyRegistry()) }
    }
}
