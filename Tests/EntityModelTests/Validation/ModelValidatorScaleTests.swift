import EntityModel
import Foundation
import PostgresTestSupport
import Testing

/// Validation takes time in proportion to the model: a generated (or hostile) model with very many
/// attributes loads in seconds, and its mistakes are still all reported.
struct ModelValidatorScaleTests {
    static func wide(_ count: Int, extra: String = "") -> String {
        var yaml = "entities:\n  Wide:\n    attributes:\n"
        for index in 0..<count { yaml += "      field\(index): { type: int32, optional: true }\n" }
        return yaml + extra
    }

    /// Loading is linear in the attributes: 20,000 of one entity cost about ten times what 2,000 do
    /// (the quadratic check grew a hundredfold, and ran for more than 15 minutes at 20,000). The work
    /// is counted as the loading thread's processor time, which other processes on a busy machine
    /// do not stretch; the bound (30×) leaves three times the linear ratio.
    @Test func twentyThousandAttributesLoadInLinearTime() throws {
        let small = try measuringThreadCPUTime { try ModelVersion(name: "v1", yaml: Self.wide(2_000), file: "Wide/v1.yaml") }
        let large = try measuringThreadCPUTime { try ModelVersion(name: "v1", yaml: Self.wide(20_000), file: "Wide/v1.yaml") }
        #expect(small.result.entities.first?.attributes.count == 2_000)
        #expect(large.result.entities.first?.attributes.count == 20_000)
        #expect(ratio(large.time, to: small.time) < 30, "2,000 attributes took \(small.time), 20,000 took \(large.time)")
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
