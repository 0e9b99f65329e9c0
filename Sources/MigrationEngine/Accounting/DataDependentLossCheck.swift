import EntityModel
import LibPQ
import Logging
import TypedSQL

/// Counts, once a mapped step's mappings ran and before it destroys anything, the rows each of
/// its data-dependent losses would lose (one set-based query per loss). Rows found without
/// consent fail the step with ``UnconsentedLoss``; with consent, each loss is logged once, with
/// the number of rows and a few ids.
struct DataDependentLossCheck {
    let losses: [DestructiveChange]
    let differ: SchemaDiffer
    let schema: String
    let step: String

    func run(on connection: Connection, allowDestructive: Bool, logger: Logger) throws {
        for loss in losses {
            guard let condition = loss.rowSet?.sql, !loss.table.isEmpty else { continue }
            let table = differ.currentName(ofOldTable: loss.table)
            let count = try connection.execute("SELECT pg_catalog.count(*) FROM \(table: table) AS source WHERE \(condition)", schema: schema)
                .first?.decode(Int64.self, at: 0) ?? 0
            guard count > 0 else { continue }
            var failure: UnconsentedLoss
            if let key = ArchiveRowKey(loss.table, in: differ.old) {
                // A keyed row is named by its key (the archive's text of it).
                let text = key.text(of: "source") { differ.currentName(ofOldColumn: $0, in: loss.table) }
                let keys = try connection.execute("SELECT \(text) FROM \(table: table) AS source WHERE \(condition) ORDER BY 1 LIMIT 5", schema: schema)
                    .map { try $0.decode(String.self, at: 0) }
                failure = UnconsentedLoss(step: step, loss: loss, rowCount: Int(count), sampleIDs: [])
                failure.sampleKeys = keys
            } else {
                let samples = try connection.execute("SELECT source.id FROM \(table: table) AS source WHERE \(condition) ORDER BY source.id LIMIT 5", schema: schema)
                    .map { try $0.decode(Int64.self, at: 0) }
                failure = UnconsentedLoss(step: step, loss: loss, rowCount: Int(count), sampleIDs: samples)
            }
            guard allowDestructive else { throw failure }
            logger.warning("\(failure.summary)")
        }
    }
}

/// A step would lose values that depend on the tenant's data, and consent (`allowDestructive`)
/// was not given. Nothing was changed: the tenant's transaction is rolled back.
public struct UnconsentedLoss: Error, Sendable, CustomStringConvertible {
    public let step: String
    public let loss: DestructiveChange
    public let rowCount: Int
    /// The first few ids of the rows concerned.
    public let sampleIDs: [Int64]
    /// Of a table keyed otherwise than by an integer id, the first few keys instead (``ArchiveRowKey``'s text).
    public var sampleKeys: [String] = []

    private var samples: [String] { sampleKeys.isEmpty ? sampleIDs.map(String.init) : sampleKeys }

    /// What would be lost, without what to do about it (for a front end to add advice in its own words).
    public var summary: String {
        "step \(step) loses values in \(rowCount) row\(rowCount == 1 ? "" : "s") of \(loss.table) (\(sampleKeys.isEmpty ? "ids" : "keys") \(samples.joined(separator: ", "))\(rowCount > samples.count ? ", …" : "")): \(loss.detail)"
    }

    public var description: String { summary + "; pass `allowDestructive: true` to accept the loss" }
}
