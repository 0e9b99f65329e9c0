import EntityModel
import LibPQ

/// Where tenants live on a Citus cluster: how many workers it has and which node holds each
/// tenant schema's tables (a distributed schema keeps them together on one node).
public struct CitusPlacement: Sendable, Codable, Hashable {
    /// Active primary workers that can hold shards.
    public var workers: Int
    /// `host:port` of the node that holds each distributed schema's tables, by schema name.
    public var nodeBySchema: [String: String]

    public init(workers: Int, nodeBySchema: [String: String]) {
        self.workers = workers
        self.nodeBySchema = nodeBySchema
    }

    /// The workers and the node of every distributed schema, read from Citus's metadata on the
    /// coordinator in two queries, or nil when the database is not a Citus database.
    ///
    /// These are the placements `citus_shards` shows, read from the metadata tables it is built
    /// on, without the shard sizes for which `citus_shards` asks every worker.
    public static func read(on connection: Connection) throws -> CitusPlacement? {
        guard try connection.capabilities.isCitus else { return nil }
        let workers = try connection.execute("SELECT count(*)::pg_catalog.int4 FROM pg_catalog.citus_get_active_worker_nodes()")
            .first?.decode(Int.self, at: 0) ?? 0
        var nodes: [String: String] = [:]
        for row in try connection.execute("""
            SELECT DISTINCT ns.nspname::pg_catalog.text, node.nodename || ':' || node.nodeport::pg_catalog.text
            FROM pg_catalog.pg_dist_schema AS distributed
            JOIN pg_catalog.pg_namespace AS ns ON ns.oid = distributed.schemaid
            JOIN pg_catalog.pg_class AS rel ON rel.relnamespace = ns.oid
            JOIN pg_catalog.pg_dist_shard AS shard ON shard.logicalrelid = rel.oid
            JOIN pg_catalog.pg_dist_placement AS placement ON placement.shardid = shard.shardid
            JOIN pg_catalog.pg_dist_node AS node ON node.groupid = placement.groupid
            """) {
            // Colocated tables share one node; should a schema ever span two, show both.
            let schema = try row.decode(String.self, at: 0), node = try row.decode(String.self, at: 1)
            nodes[schema] = nodes[schema].map { [$0, node].sorted().joined(separator: ",") } ?? node
        }
        return CitusPlacement(workers: workers, nodeBySchema: nodes)
    }
}
