import EntityModel
import Foundation
import LibPQ
import PostgresTestSupport

/// Generated issues of the test-only BugTracker family (`PackagePaths.bugTrackerFamily`) whose
/// status is typed as people type it: a few words in any case, with spaces around them or not,
/// empty, blank or NULL; due dates with ties and NULLs; priorities, NULL ones if asked. And what
/// v2 → v3's de-duplication must make of them, worked out in Swift (the oracle).
public struct BugTrackerIssues: Sendable {
    public struct Row: Sendable { public var id: Int64, status: String?, dueDay: Int?, priority: Int? }

    static let words = ["open", "closed", "in progress", "won't fix", "Crème"]

    public private(set) var rows: [Row] = []

    public init(count: Int, seed: UInt64, nullPriorities: Bool = false) {
        var random = SeededGenerator(seed: seed)
        for index in 1...count {
            var status: String?
            switch Int.random(in: 0..<10, using: &random) {
            case 0: status = nil
            case 1: status = ["", "  "].randomElement(using: &random)!
            default:
                let word = Self.words.randomElement(using: &random)!
                // ASCII letters only change case: lower() of other letters depends on the cluster's locale.
                let cased = String(word.map { $0.isASCII && Bool.random(using: &random) ? Character($0.uppercased()) : $0 })
                status = String(repeating: " ", count: Int.random(in: 0...2, using: &random)) + cased + String(repeating: " ", count: Int.random(in: 0...1, using: &random))
            }
            let dueDay = Int.random(in: 0..<4, using: &random) == 0 ? nil : Int.random(in: 0..<12, using: &random)
            // The smallint extremes now and then (v1's type).
            let priority: Int? = nullPriorities && index % 5 == 0 ? nil
                : index % 40 == 1 ? -32768 : index % 40 == 2 ? 32767 : Int.random(in: -5...5, using: &random)
            // Ids with gaps.
            rows.append(Row(id: Int64(index * 3 + Int.random(in: 0...1, using: &random)), status: status, dueDay: dueDay, priority: priority))
        }
    }

    /// The key `lower(btrim(status))`: spaces trimmed as btrim does, ASCII letters lowered.
    public static func key(_ status: String?) -> String? {
        guard let status else { return nil }
        let trimmed = String(status.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        return String(trimmed.map { $0.isASCII ? Character($0.lowercased()) : $0 })
    }

    /// Whether `a` comes before `b`: by due date, latest first and NULLs last, when
    /// `latestDueFirst`, else by id alone; ties by id.
    static func precedes(_ a: Row, _ b: Row, latestDueFirst: Bool) -> Bool {
        if latestDueFirst, a.dueDay != b.dueDay {
            guard let x = a.dueDay else { return false }
            guard let y = b.dueDay else { return true }
            return x > y
        }
        return a.id < b.id
    }

    /// The first row of each key, in the order of the first rows: the Status rows, ids 1, 2, ….
    func statuses(latestDueFirst: Bool) -> [Row] {
        var first: [String: Row] = [:]
        for row in rows {
            guard let key = Self.key(row.status) else { continue }
            if let current = first[key], !Self.precedes(row, current, latestDueFirst: latestDueFirst) { continue }
            first[key] = row
        }
        return first.values.sorted { Self.precedes($0, $1, latestDueFirst: latestDueFirst) }
    }

    /// Each issue's Status id (nil without a status), and the Status rows as (id, name).
    public func expected(latestDueFirst: Bool = false) -> (links: [Int64: Int64?], statuses: [[String?]]) {
        let statuses = statuses(latestDueFirst: latestDueFirst)
        var ids: [String: Int64] = [:]
        for (index, row) in statuses.enumerated() { ids[Self.key(row.status)!] = Int64(index + 1) }
        let links = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, Self.key($0.status).flatMap { ids[$0] }) })
        return (links, statuses.enumerated().map { [String($0.offset + 1), $0.element.status] })
    }

    /// The issues whose status is not the one their Status keeps: the values merged away.
    public func merged(latestDueFirst: Bool = false) -> [Int64] {
        let kept = Dictionary(uniqueKeysWithValues: statuses(latestDueFirst: latestDueFirst).map { (Self.key($0.status)!, $0.status) })
        return rows.filter { row in Self.key(row.status).map { kept[$0] != row.status } ?? false }.map(\.id).sorted()
    }

    /// Inserts the issues, and their project, into a tenant's schema at `version` (v1 or v2).
    public func insert(into schema: String, version: String, on connection: Connection) throws {
        try connection.execute("INSERT INTO \(schema: schema, table: "project") (id, name) VALUES (1, 'Web')")
        let columns = version == "v1" ? ["id", "title", "status", "priority", "project_id"] : ["id", "summary", "status", "priority", "project_id", "due_date"]
        try connection.copyIn("COPY \(schema: schema, table: "issue") (\(ids: columns)) FROM STDIN") { writer in
            for row in rows {
                try writer.writeRow([String(row.id), "Issue \(row.id)", row.status, row.priority.map(String.init), "1"]
                    + (version == "v1" ? [] : [row.dueDay.map { "2026-01-\(String(format: "%02d", $0 + 1)) 09:00:00+00" }]))
            }
        }
        try connection.execute(
            "SELECT setval(pg_get_serial_sequence(\(qualifiedNameLiteral: "issue"), 'id'), (SELECT max(id) FROM \(table: "issue")))", schema: schema
        )
    }

    /// A new schema at BugTracker v2 (the family's DDL), holding the issues.
    public func insert(intoNewSchema schema: String, family: ModelFamily, on connection: Connection) throws {
        try connection.execute("CREATE SCHEMA \(id: schema)")
        for statement in family.version(named: "v2")!.relationalSchema().creationStatements {
            try connection.execute(statement, schema: schema)
        }
        try insert(into: schema, version: "v2", on: connection)
    }

    /// Every issue of `schema` at `version` (v1 or v2), by id, its columns by name (their order
    /// changes on the way).
    public static func issues(in schema: String, version: String, on connection: Connection) throws -> [[String?]] {
        let columns = version == "v1" ? "title, status, priority::text" : "summary, status, priority::text, due_date::text"
        return try connection.rows("SELECT i.id::text, \(columns), project_id::text FROM \(connection.quoteIdentifier(schema)).issue AS i ORDER BY i.id")
    }
}
