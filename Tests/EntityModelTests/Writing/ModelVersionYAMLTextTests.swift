import EntityModel
import Foundation
import PostgresTestSupport
import Testing

/// A version written as YAML loads back as the same version: every family of the repository, and
/// generated versions with awkward names and defaults.
struct ModelVersionYAMLTextTests {
    /// Every family of the repository that loads (`Migrations/` and the test fixtures).
    static func everyFamily() -> [ModelFamily] {
        PackagePaths.familyDirectories.compactMap { try? ModelFamily.load(from: $0) }
    }

    static func reloaded(_ version: ModelVersion) throws -> ModelVersion {
        try ModelVersion(name: version.name, yaml: version.yamlText(header: ["written by a test", "second line"]), file: "test.yaml")
    }

    @Test func everyVersionOfTheRepositoryRoundTrips() throws {
        let families = Self.everyFamily()
        #expect(families.count >= 20, "found \(families.map(\.name))")
        for family in families {
            for version in family.versions {
                let again = try Self.reloaded(version)
                #expect(again == version, "\(family.name) \(version.name)")
                #expect(again.versionHash == version.versionHash, "\(family.name) \(version.name)")
            }
            let manifest = family.manifestText(header: ["a family"])
            #expect(manifest.hasPrefix("# a family\nfamily: \(family.name)\n"))
        }
    }

    @Test func recipesV2IsWrittenAsAPersonWouldWriteIt() throws {
        let v2 = try #require(try ModelFamily.load(from: PackagePaths.migrationFamily("Recipes")).version(named: "v2"))
        #expect(v2.yamlText() == """
            entities:
              Recipe:
                attributes:
                  method: { type: string, optional: true, renamingIdentifier: instructions }
                  name: { type: string }
                  prepMinutes: { type: int32, optional: true }
                  servings: { type: int32, optional: true, allowsNarrowing: true }
                  type: { type: string, default: "Other", indexed: true }
                relationships:
                  ingredients: { destination: RecipeIngredient, toMany: true, inverse: recipe, deleteRule: cascade }
              RecipeIngredient:
                attributes:
                  name: { type: string }
                  quantity: { type: decimal, optional: true }
                  unitOfMeasure: { type: string, optional: true }
                relationships:
                  recipe: { destination: Recipe, inverse: ingredients }

            """)
    }

    /// Seeded generation: defaults of every type with the values most likely to be misread
    /// (quotes, backslashes, line breaks, YAML words, numbers as text, infinities, empty bytes),
    /// names YAML would read as Booleans, and every optional key.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func generatedVersionsRoundTrip(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let texts = ["", "null", "~", "yes", "No", "on", "42", "1.5", "it's", "say \"hi\"", "back\\slash", "line\nbreak", "tab\there",
                     "# not a comment", "key: value", "{ a: 1 }", "[1, 2]", "Entrée", "😀", "\u{0007}bell", "\u{85}next line", "para\u{2029}graph", "\u{7F}del", "-", "'quoted'", " padded "]
        var entities: [Entity] = []
        for index in 0..<8 {
            var attributes: [Attribute] = []
            for type in AttributeType.allCases {
                let value: DefaultValue? = switch type {
                case .string: .string(texts.randomElement(using: &random)!)
                case .int16: .integer(Int64(Int16.random(in: .min ... .max, using: &random)))
                case .int32: .integer(Int64(Int32.random(in: .min ... .max, using: &random)))
                case .int64: .integer(Int64.random(in: .min ... .max, using: &random))
                case .decimal: .decimal(["0", "-12.50", "1e10", "3.14159265358979323846"].randomElement(using: &random)!)
                case .double: .floatingPoint([0.1, -2.5e-7, .infinity, -.infinity, 1e300, 5].randomElement(using: &random)!)
                case .float: .floatingPoint([0.5, -.infinity, 3].randomElement(using: &random)!)
                case .bool: .bool(Bool.random(using: &random))
                case .date: .date(["2024-01-01T00:00:00Z", "1999-12-31T23:59:59.500Z"].randomElement(using: &random)!)
                case .uuid: .uuid("123e4567-e89b-12d3-a456-426614174000")
                case .binary: .binary((0..<Int.random(in: 0...4, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
                case .json: .json(["{\"a\":[1,null,\"x\\\"y\"]}", "\"text\"", "null", "[]"].randomElement(using: &random)!)
                }
                attributes.append(Attribute(
                    name: "\(type.rawValue)Value", type: type, isOptional: Bool.random(using: &random),
                    defaultValue: Bool.random(using: &random) ? value : nil, isUnique: type == .uuid && Bool.random(using: &random),
                    isIndexed: Bool.random(using: &random),
                    renamingIdentifier: Bool.random(using: &random) ? "old\(type.rawValue.capitalized)" : nil,
                    columnOverride: Bool.random(using: &random) ? "c_\(type.rawValue)" : nil
                ))
            }
            attributes.append(Attribute(name: ["yes", "on", "no", "off", "y", "n", "true", "null"][index], type: .string))
            entities.append(Entity(name: "E\(index)", tableOverride: Bool.random(using: &random) ? "t\(index)" : nil, attributes: attributes))
        }
        let version = try ModelVersion(name: "v1", entities: entities)
        let again = try Self.reloaded(version)
        for (written, read) in zip(version.entities, again.entities) {
            for (attribute, readBack) in zip(written.attributes, read.attributes) {
                var located = attribute
                located.location = readBack.location   // a location never distinguishes, but nil differs from one
                if located != readBack { Issue.record("\(written.name).\(attribute.name): wrote \(attribute), read \(readBack)") }
            }
        }
        #expect(again.entities.map(\.name) == version.entities.map(\.name))
        #expect(again.versionHash == version.versionHash)
    }
}
