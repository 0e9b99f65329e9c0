import Foundation
import PostgresTestSupport
import Testing

/// A fleet run's progress: one live line redrawn in place on a terminal, coloured unless
/// `NO_COLOR`; plain periodic lines off a terminal or in CI (issue 20, item 4).
@Suite("Fleet progress on a terminal")
struct ProgressDisplayTests {
    static let clearLine = "\r\u{1B}[K"
    static let tenants = (1...24).map { "t\($0)" }

    /// A fleet command with stderr on a pseudo-terminal and `environment` on top of the test's own:
    /// its exit status, what the terminal showed, and its other output.
    func fleetRun(_ arguments: [String], on conninfo: String, environment: [String: String?]) async throws -> (status: Int32, screen: String, output: String) {
        let terminal = try PseudoTerminal(columns: 100)
        let running = try TenantMigrateExecutable.start(
            arguments + ["--database-url", conninfo, "--migrations", PackagePaths.trackerFamily.path],
            environment: environment, standardError: terminal.terminal)
        try terminal.closeTerminal()
        let output = try await running.finish()
        return (output.status, terminal.output(), output.stdout + output.stderr)
    }

    @Test func aFleetRunDrawsOneLiveLineOnATerminal() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            #expect(try await tracker(["tenant", "create"] + Self.tenants + ["--version", "v1"], on: conninfo).status == 0)

            let coloured = try await fleetRun(["migrate", "--all"], on: conninfo, environment: ["CI": nil, "NO_COLOR": nil, "TERM": "xterm-256color"])
            #expect(coloured.status == 0)
            // Redrawn in place (a carriage return and a clear, no newline between draws), bold and
            // green on a terminal, ending at 24/24 with the line left on screen.
            let draws = coloured.screen.components(separatedBy: Self.clearLine).dropFirst()
            #expect(!draws.isEmpty, "\(coloured.screen.debugDescription)")
            #expect(draws.allSatisfy { !$0.dropLast().contains("\n") }, "one line, redrawn: \(coloured.screen.debugDescription)")
            let last = try #require(draws.last)
            #expect(last.hasPrefix("\u{1B}[1mmigrating\u{1B}[0m [\u{1B}[32m####################\u{1B}[0m] 24/24, ") && last.contains(" tenants/s") && last.hasSuffix("\n"),
                    "\(last.debugDescription)")

            let plain = try await fleetRun(["rollback", "--all", "--to", "v1"], on: conninfo, environment: ["CI": nil, "NO_COLOR": "1", "TERM": "xterm-256color"])
            #expect(plain.status == 0)
            let lastPlain = try #require(plain.screen.components(separatedBy: Self.clearLine).last)
            #expect(lastPlain.hasPrefix("rolling back [####################] 24/24, ") && !plain.screen.contains("\u{1B}[1m"), "NO_COLOR: \(plain.screen.debugDescription)")

            // In CI, even on a terminal: plain lines, each whole, not redrawn (the rolled-back
            // tenants are pinned at v1, so this run creates others).
            let ci = try await fleetRun(["tenant", "create"] + Self.tenants.map { "u" + $0 } + ["--version", "v1"], on: conninfo,
                                        environment: ["CI": "true", "NO_COLOR": "1"])
            #expect(ci.status == 0)
            #expect(ci.screen.contains("creating 24/24, ") && !ci.screen.contains("#"), "\(ci.screen.debugDescription) \(ci.output)")
        }
    }
}
