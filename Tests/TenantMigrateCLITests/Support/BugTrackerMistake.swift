import Foundation
import PostgresTestSupport

/// The BugTracker family (`PackagePaths.bugTrackerFamily`) copied into a temporary directory with
/// one of the mistakes a new user makes in it (issue 35): the mapping that makes Status without
/// `attributes: name:`, a required to-one that no mapping links, a `distinct:` key naming a column
/// that does not exist.
struct BugTrackerMistake {
    /// The copy's family directory, to pass as `--migrations`.
    let directory: URL

    /// The family copied, each file's text in `edits` changed by its function (paths relative to
    /// the family directory). An edit that changes nothing fails: the fixture moved on.
    init(_ edits: [String: (String) -> String]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bugtracker-\(UUID().uuidString)/BugTracker")
        try FileManager.default.createDirectory(at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: PackagePaths.bugTrackerFamily, to: directory)
        for (path, edit) in edits {
            let file = directory.appendingPathComponent(path)
            let text = try String(contentsOf: file, encoding: .utf8)
            let edited = edit(text)
            guard edited != text else { throw TestFailure("the edit of \(path) changed nothing") }
            try edited.write(to: file, atomically: true, encoding: .utf8)
        }
    }

    /// `IssueToStatus` without `attributes: name:`: Status.name is required and nothing fills it.
    static func statusNameUnset() throws -> BugTrackerMistake {
        try BugTrackerMistake(["Mappings/v2-to-v3.yaml": { $0.replacingOccurrences(of: "    attributes:\n      name: source.status\n", with: "") }])
    }

    /// Issue.status made a required to-one in v3, and `IssueToIssue` without `relationships: status:`.
    static func statusUnlinked() throws -> BugTrackerMistake {
        try BugTrackerMistake([
            "v3.yaml": {
                $0.replacingOccurrences(of: "status: { destination: Status, inverse: issues, deleteRule: nullify }",
                                        with: "status: { destination: Status, inverse: issues, deleteRule: nullify, optional: false }")
            },
            "Mappings/v2-to-v3.yaml": { $0.replacingOccurrences(of: "    relationships:\n      status: IssueToStatus\n", with: "") },
        ])
    }

    /// `distinct:` over a column Issue does not have (`state`).
    static func distinctOnAMissingColumn() throws -> BugTrackerMistake {
        try BugTrackerMistake(["Mappings/v2-to-v3.yaml": {
            $0.replacingOccurrences(of: "distinct: \"lower(btrim(source.status))\"", with: "distinct: \"lower(btrim(state))\"")
        }])
    }

    /// Not a mistake: v3's Issue.priority with `default: 0`, as a new user writes it. The step then
    /// runs the mapping's `coalesce(source.priority, 0)` and the backfill of the default.
    static func priorityWithDefault() throws -> BugTrackerMistake {
        try BugTrackerMistake(["v3.yaml": { $0.replacingOccurrences(of: "priority: { type: int32 }", with: "priority: { type: int32, default: 0 }") }])
    }
}
