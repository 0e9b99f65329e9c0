import EntityModel
import MigrationEngine
import Testing

/// What a plan changes in place in a sequence a column draws from (what Citus refuses on a
/// distributed table), read from the plan alone: each change both ways, and nothing for a step that
/// leaves the sequences alone, creates or drops one, or changes one no column draws from.
@Suite("A plan's in-place changes of the sequences columns draw from")
struct MigrationPlanSequenceAlterationsTests {
    static let v1 = """
        entities:
          Book:
            key: { type: bigserial }
            attributes:
              title: { type: string }
          Ticket:
            attributes:
              number: { type: bigint, defaultExpression: "nextval('ticket_no'::regclass)" }
        sequences:
          ticket_no: {}
          spare: {}
        """

    static func alterations(_ v2: String, back: Bool = false) throws -> [String] {
        let family = try ModelFamily(name: "S", versions: [ModelVersion(name: "v1", yaml: v1, file: "S/v1.yaml"), ModelVersion(name: "v2", yaml: v2, file: "S/v2.yaml")])
        return try MigrationPlanner(family: family).plan(from: back ? "v2" : "v1", to: back ? "v1" : "v2").inPlaceSequenceAlterations
    }

    @Test func eachChangeIsNamedBothWays() throws {
        let identity = Self.v1.replacingOccurrences(of: "key: { type: bigserial }", with: "key: { type: bigint, identity: always }")
        #expect(try Self.alterations(identity) == ["step v1 → v2: inferred changes key book.id from serial to always"])
        #expect(try Self.alterations(identity, back: true) == ["step v2 → v1: inferred changes key book.id from always to serial"])
        let options = Self.v1.replacingOccurrences(of: "key: { type: bigserial }", with: "key: { type: bigserial, increment: 5 }")
        #expect(try Self.alterations(options) == ["step v1 → v2: inferred changes the options of the sequence of key book.id"])
        let drawn = Self.v1.replacingOccurrences(of: "ticket_no: {}", with: "ticket_no: { increment: 10 }")
        #expect(try Self.alterations(drawn, back: true) == ["step v2 → v1: inferred changes the options of sequence ticket_no, which ticket.number draws from"])
    }

    @Test func stepsThatLeaveTheDrawnSequencesAloneHaveNone() throws {
        #expect(try Self.alterations(Self.v1 + "\n  added: {}").isEmpty)
        #expect(try Self.alterations(Self.v1.replacingOccurrences(of: "  spare: {}\n", with: "").replacingOccurrences(of: "  spare: {}", with: "")).isEmpty)
        #expect(try Self.alterations(Self.v1.replacingOccurrences(of: "spare: {}", with: "spare: { increment: 3 }")).isEmpty)
        #expect(try Self.alterations(Self.v1.replacingOccurrences(of: "title: { type: string }", with: "title: { type: string, optional: true }")).isEmpty)
    }
}
