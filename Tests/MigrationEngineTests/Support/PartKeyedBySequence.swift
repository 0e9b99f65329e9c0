/// The opening of a version whose one entity, `Part`, takes its `keyType` key from the model's
/// sequence `part_seq` and has an optional `name`; the version's `sequences:` follow it.
func partKeyedBySequence(_ keyType: String) -> String {
    """
    entities:
      Part:
        key: { type: \(keyType), defaultExpression: "nextval('part_seq'::regclass)" }
        attributes:
          name: { type: string, optional: true }

    """
}
