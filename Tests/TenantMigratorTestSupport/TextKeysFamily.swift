/// Entities keyed otherwise than by integers, as online runs log and find them again by their
/// keys' text (docs/Online.md, "Keys"): a uuid id, a natural `char(2)` and a text key, a (date,
/// char(3)) and a (bigint link, varchar) composite, and the integer-keyed entity the latter links
/// to. The online suites pick the entities they need (OnlineRunTextKeysTests, and on Citus, where
/// keys that need STABLE casts are refused, CitusOnlineTextKeysTests).
public enum TextKeysFamily {
    /// Keyed by a uuid, with a column a version may drop (archived by its key).
    public static let token = """
          Token:
            key: { type: uuid, defaultExpression: "gen_random_uuid()" }
            attributes:
              label: { type: varchar(40) }
              note: { type: string, optional: true }

        """
    /// Keyed by its `char(2)` code.
    public static let country = """
          Country:
            key: [code]
            attributes:
              code: { type: char(2) }
              name: { type: string }

        """
    /// Keyed by its text name.
    public static let tag = """
          Tag:
            key: [name]
            attributes:
              name: { type: string }
              weight: { type: int32, default: 0 }

        """
    /// Keyed by a date and a `char(3)`.
    public static let rate = """
          Rate:
            key: [day, currency]
            attributes:
              day: { type: pg.date }
              currency: { type: char(3) }
              amount: { type: "numeric(12,4)" }

        """
    /// Keyed by its Item (a bigint link) and a varchar.
    public static let stock = """
          Stock:
            key: [item, warehouse]
            attributes:
              warehouse: { type: varchar(20) }
              quantity: { type: int32, default: 0 }
            relationships:
              item: { destination: Item, optional: false }

        """
    /// The integer-keyed entity Stock links to, with a note a version may drop, or without.
    public static func item(withNote: Bool) -> String {
        "  Item:\n    attributes:\n      title: { type: string }\n" + (withNote ? "      note: { type: string, optional: true }\n" : "")
    }

    /// A model of `entities` (each one of the above).
    public static func model(_ entities: [String]) -> String {
        "entities:\n" + entities.joined()
    }
}
