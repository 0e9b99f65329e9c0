import EntityModel
import Testing
import TypedSQL

/// A sequence's DDL, as text: its type and options are typed fragments, rendered as before.
struct ModelSequenceDDLTests {
    @Test func creationNamesTypeAndOptionsAsDigits() {
        let sequence = ModelSequence(name: "product_seq", type: .integer, start: -100, increment: 50, minValue: -1000, maxValue: 100_000, cache: 20, cycle: true)
        #expect(sequence.creation.text(schema: "tenant_acme") == #"""
            CREATE SEQUENCE "tenant_acme"."product_seq" AS integer START WITH -100 INCREMENT BY 50 MINVALUE -1000 MAXVALUE 100000 CACHE 20 CYCLE
            """#)
        #expect(ModelSequence(name: "hibernate_sequence").creation.text(schema: "s") == #"CREATE SEQUENCE "s"."hibernate_sequence" AS bigint START WITH 1 INCREMENT BY 1"#)
    }
}
