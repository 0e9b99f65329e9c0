@testable import EmbeddedPostgres
import Foundation
import LibPQ
import PostgresTestSupport
import Testing

@Suite struct EmbeddedPostgresTests {
    /// A second, private cluster: created, used, stopped, restarted on the same data, stopped.
    @Test func privateClusterStartsStopsAndRestartsOnItsData() throws {
        let directory = URL(fileURLWithPath: "/tmp/tm-embedded-test-\(getpid())-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let embedded = EmbeddedPostgres(directory: directory, durability: .fast)
        defer { try? embedded.stop() }

        let server = try embedded.start()
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/PG_VERSION").path))
        #expect(server.socketDirectory == directory.appendingPathComponent("socket").path)
        #expect(server.socketPort == 5432)
        #expect(server.tcpPort == nil)
        #expect(server.tcpConnectionString(user: "postgres", password: "x") == nil)
        let firstStart: String
        do {
            let connection = try Connection(server.connectionString())
            let version: String = try connection.scalar("SELECT version()")
            #expect(version.hasPrefix("PostgreSQL "))
            #expect(try connection.scalar("SELECT current_user", as: String.self) == "postgres")
            #expect(try connection.scalar("SHOW fsync", as: String.self) == "off")
            #expect(try connection.scalar("SHOW data_directory", as: String.self) == directory.appendingPathComponent("data").path)
            try connection.fixtureScript("CREATE TABLE survivor (note text); INSERT INTO survivor VALUES ('before the restart')")
            firstStart = try connection.scalar("SELECT pg_postmaster_start_time()::text")
        }

        // start() while running finds the running server instead of starting another.
        let again = try embedded.start()
        #expect(again.socketDirectory == server.socketDirectory)
        #expect(again.socketPort == server.socketPort)
        do {
            let connection = try Connection(again.connectionString())
            #expect(try connection.scalar("SELECT pg_postmaster_start_time()::text", as: String.self) == firstStart)
        }

        try server.stop()
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/postmaster.pid").path))
        #expect(throws: PQError.self) { _ = try Connection(server.connectionString()) }
        try embedded.stop()  // Stopping a stopped server does nothing.

        // Restarted, it reuses the cluster: the data survived, and initdb did not run again.
        let restarted = try embedded.start()
        do {
            let connection = try Connection(restarted.connectionString())
            #expect(try connection.scalar("SELECT note FROM survivor", as: String.self) == "before the restart")
            #expect(try connection.scalar("SELECT pg_postmaster_start_time()::text", as: String.self) != firstStart)
        }
        try restarted.stop()
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/postmaster.pid").path))
    }

    @Test func serverBinariesLookupFindsInitdb() throws {
        let binaries = try ServerBinaries.locate()
        #expect(FileManager.default.isExecutableFile(atPath: binaries.tool("initdb").path))
        #expect(FileManager.default.isExecutableFile(atPath: binaries.tool("pg_ctl").path))
        #expect(FileManager.default.isExecutableFile(atPath: binaries.tool("postgres").path))
    }

    @Test func longDirectoriesGetASocketDirectoryUnderTmp() {
        let short = EmbeddedPostgres(directory: URL(fileURLWithPath: "/tmp/short"))
        #expect(short.socketDirectory.path == "/tmp/short/socket")
        let longPath = "/tmp/" + String(repeating: "very-long-directory-name/", count: 6)
        let long = EmbeddedPostgres(directory: URL(fileURLWithPath: longPath))
        let socket = long.socketDirectory.path
        #expect(socket.hasPrefix("/tmp/tenant-migrate-"))
        #expect(socket.utf8.count + 20 < 100)
        #expect(socket == EmbeddedPostgres(directory: URL(fileURLWithPath: longPath)).socketDirectory.path, "stable")
        #expect(socket != EmbeddedPostgres(directory: URL(fileURLWithPath: longPath + "x")).socketDirectory.path)
    }

    @Test func unusableDirectoryIsAClearError() {
        let embedded = EmbeddedPostgres(directory: URL(fileURLWithPath: "/proc/tm-cannot-create-here"))
        do {
            _ = try embedded.start()
            Issue.record("started in /proc")
        } catch let error as EmbeddedPostgresError {
            #expect(error.message.hasPrefix("cannot create /proc/tm-cannot-create-here"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
