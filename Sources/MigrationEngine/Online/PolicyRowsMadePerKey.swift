import EntityModel
import TypedSQL

/// The rows a row-local Swift policy makes once per key (``PolicyLocality/rowLocal(sharedRows:)``),
/// seen as the distinct mapping they amount to: `distinct: source.<attribute>` from the policy's
/// source rows into the shared entity, keys in id order. Catch-up follows them as it follows a
/// distinct mapping (``OnlineDistinct``); ``RowLocalityCheck`` checks, as the policy runs, that it
/// makes them as such a mapping would (at each key's first row, ids the keys' ranks).
struct PolicyRowsMadePerKey {
    /// The policy's name, and the source attribute that keys the rows.
    let policy: String
    let attribute: String
    /// The policy's mapping with the shared entity as its destination and the attribute as its
    /// distinct key (its name is the policy mapping's).
    let mapping: EntityMapping
    /// The compiled key; nil when the source entity has no such attribute.
    let rows: DistinctRows?
}

extension MigrationStep {
    /// The rows this step's row-local policies make once per key, in mapping order, then by entity.
    var policyRowsMadePerKey: [PolicyRowsMadePerKey] {
        guard let model = mappingModel, let compiler = program.mapped?.compiler else { return [] }
        return model.entityMappings.flatMap { mapping -> [PolicyRowsMadePerKey] in
            guard let name = mapping.policy, let policy = model.policies.makePolicy(named: name) else { return [] }
            return policy.locality.sharedRows.sorted { $0.key < $1.key }.map { entity, attribute in
                let keyed = EntityMapping(name: mapping.name, source: mapping.source, destination: entity, filter: mapping.filter, attributes: [],
                                          relationships: [], policy: name, location: mapping.location, filterLocation: mapping.filterLocation,
                                          distinct: .init(key: "source.\(attribute)", orderBy: nil, location: nil, orderByLocation: nil))
                let rows = compiler.source.allAttributes(of: mapping.source).contains { $0.attribute.name == attribute }
                    ? (try? compiler.distinctRows(keyed)) ?? nil : nil
                return PolicyRowsMadePerKey(policy: name, attribute: attribute, mapping: keyed, rows: rows.map(\.keyedAsPolicies))
            }
        }
    }
}

extension DistinctRows {
    /// The same rows keyed as a policy's lookups key them: by the value's text (``SourceRow/string(_:)``),
    /// equal when Swift's `String` finds it equal, that is canonically equivalent (the same NFC
    /// form). PostgreSQL tells `Café` composed and decomposed apart, and `1.0` from `1.00` as text
    /// but not as numeric; the policy's lookups do the opposite for both, so keys compared as
    /// PostgreSQL compares the values would not be the keys the policy made rows for, and catch-up
    /// would give their rows other ids than offline (issue 33). Needs a UTF-8 database. ASCII text
    /// is its own NFC form, and is not normalized: `normalize` costs about 2 s per 1,000,000 values.
    var keyedAsPolicies: DistinctRows {
        let text: SQL = "(\(key))::pg_catalog.text"
        let normalized: SQL = "CASE WHEN pg_catalog.octet_length(\(text)) = pg_catalog.char_length(\(text)) THEN \(text) "
            + "ELSE pg_catalog.normalize(\(text), 'NFC') END"
        return DistinctRows(mapping: mapping, sourceTable: sourceTable, from: from, conditions: conditions,
                            key: normalized, order: order, offsetSetting: offsetSetting, keyIsText: true)
    }
}
