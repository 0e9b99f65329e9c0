import EntityModel
import Foundation
import Testing

/// Validation takes time in proportion to the model: a generated (or hostile) model with very many
/// attributes loads in seconds, and its mistakes are still all reported.
struct ModelValidatorScaleTests {
    static func wide(_ count: Int, extra: String = "") -> String {
        var yaml = "entities:\n  Wide:\n    attributes:\n"
        for index in 0..<count { yaml += "      field\(index): { type: int32, optional: true }\n" }
        return yaml + extra
    }

    /// 20,000 attributes of one entity load well within 120 seconds, ten times what was measured
    /// (4.7 to 6.7 seconds in a debug build on a machine busy with other builds) and far below the
    /// quadratic check, which ran for more than 15 minutes.
    @Test func twentyThousandAttributesLoadInLinearTime() throws {
        let clock = ContinuousClock()
        let start = clock.now
        let version = try ModelVersion(name: "v1", yaml: Self.wide(20_000), file: "Wide/v1.yaml")
        let elapsed = clock.now - start
        #expect(version.entities.first?.attributes.count == 20_000)
        #expect(elapsed < .seconds(120), "took \(elapsed)")
    }

    /// The same name twice, and two names with one snake_case, are still found among many.
    @Test func clashesAreFoundAmongManyAttributes() throws {
        let yaml = Self.wide(2_000, extra: "      fieldX: { type: string }\n      field_x: { type: string }\n"
            + "    relationships:\n      field7: { destination: Wide }\n")
        #expect {
            try ModelVersion(name: "v1", yaml: yaml, file: "Wide/v1.yaml")
        } throws: { error in
            let messages = (error as? ModelLoadError)?.diagnostics.map(\.message) ?? []
            return messages.contains { $0.contains("relationship Wide.field7 has the same name as attribute Wide.field7") }
                && messages.contains { $0.contains("Wide.field_x") && $0.contains("Wide.fieldX") }
        }
    }
}
