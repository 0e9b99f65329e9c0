import Foundation
import TenantMigrator

/// `tenant create --from-file`: one tenant name a line. Blank lines are skipped, and `#` starts a
/// comment, on a line of its own or after a name (`globex  # trailing comment`); spaces around a
/// name do not count. A name that breaks the naming rule is reported with the file and line.
struct TenantListFile {
    let path: String

    /// The names, in file order.
    ///
    /// - Throws: ``CLIError`` (`tenants.txt:3: invalid tenant name "Bad Name": …`, or
    ///   `cannot read tenants.txt: no such file`).
    func names() throws -> [String] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw FileProblem.reading(path, error)
        }
        var names: [String] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.firstIndex(of: "#").map { line[..<$0] } ?? line
            let name = content.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty else { continue }
            do {
                _ = try TenantName(name)
            } catch {
                throw CLIError("\(path):\(index + 1): \(error)")
            }
            names.append(name)
        }
        return names
    }
}
