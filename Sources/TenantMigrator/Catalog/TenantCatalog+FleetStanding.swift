import LibPQ
import TypedSQL

/// What a fleet run reads from the catalog: the selected tenants that are not at the target, as
/// records, and those that are, as a count (and, when asked, their names). The cost of a deploy
/// with nothing to do is then one round trip that reads no tenant's row, however large the fleet:
/// the tenants at the target are counted on the catalog's `(family, version)` index, and only the
/// others are read and decoded.
struct FleetStanding {
    /// The selected tenants not at the target (pinned ones included), by name.
    var elsewhere: [TenantRecord]
    /// How many selected tenants are at the target.
    var currentCount: Int
    /// Their names, by name, when asked for.
    var currentNames: [String]?
}

extension TenantCatalog {
    /// The selected tenants of `family`, split by where they stand with respect to `target`: one
    /// round trip, whose statements read only the rows of tenants not at `target` (and the names of
    /// the others when `listingCurrent`). `selection`'s names and pattern filter on the server; its
    /// limit is the caller's.
    func fleetStanding(
        family: String, target: String, selection: TenantSelection, listingCurrent: Bool, on connection: Connection
    ) throws -> FleetStanding {
        do {
            return try fleetStanding(family: family, target: target, selection: selection, listingCurrent: listingCurrent,
                                     columns: TenantRecord.columns, on: connection)
        } catch SQLState.undefinedColumn {
            // A catalog from before pins (read-only calls and trials never upgrade it): its tenants are unpinned.
            return try fleetStanding(family: family, target: target, selection: selection, listingCurrent: listingCurrent,
                                     columns: TenantRecord.columnsOfUnpinnedCatalog, on: connection)
        }
    }

    private func fleetStanding(
        family: String, target: String, selection: TenantSelection, listingCurrent: Bool, columns: SQL, on connection: Connection
    ) throws -> FleetStanding {
        let tenants = table("tenants")
        // $1 family, $2 target, $3 the selected names (NULL: any), $4 the pattern as LIKE (NULL: any).
        let selected: SQL = "family = $1 AND ($3::text[] IS NULL OR name = ANY ($3::text[])) AND ($4::text IS NULL OR name LIKE $4 ESCAPE '\\')"
        let parameters: [(any PQEncodable)?] = [
            family, target, selection.names.isEmpty ? nil : CatalogArray.text(selection.names), selection.pattern.map(Self.likePattern),
        ]
        var pipeline = Pipeline()
        let count = pipeline.add(Statement("SELECT pg_catalog.count(*)::pg_catalog.int8 FROM \(tenants) WHERE version = $2 AND \(selected)", parameters))
        // Two ranges rather than `<>`: both are scans of the (family, version) index.
        let elsewhere = pipeline.add(Statement("SELECT \(columns) FROM \(tenants) WHERE (version < $2 OR version > $2) AND \(selected) ORDER BY name", parameters))
        let names = listingCurrent ? pipeline.add(Statement("SELECT name FROM \(tenants) WHERE version = $2 AND \(selected) ORDER BY name", parameters)) : nil
        let outcome = try connection.pipeline(pipeline)
        return FleetStanding(
            elsewhere: try outcome[elsewhere]?.map(TenantRecord.init(row:)) ?? [],
            currentCount: Int(try outcome[count]?.first?.decode(Int64.self, at: 0) ?? 0),
            currentNames: try names.map { try outcome[$0]?.map { try $0.decode(String.self, at: 0) } ?? [] }
        )
    }

    /// A `TenantSelection` pattern (`*` any run of characters, `?` one) as a `LIKE` pattern with `\` as
    /// its escape character.
    static func likePattern(_ glob: String) -> String {
        var like = ""
        for character in glob {
            switch character {
            case "*": like += "%"
            case "?": like += "_"
            case "%", "_", "\\": like += "\\" + String(character)
            default: like.append(character)
            }
        }
        return like
    }

}

/// `text[]` parameters for the catalog's statements.
enum CatalogArray {
    /// A `text[]` literal of `values`, each quoted.
    static func text(_ values: [String]) -> String {
        "{" + values.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
            .joined(separator: ",") + "}"
    }
}
