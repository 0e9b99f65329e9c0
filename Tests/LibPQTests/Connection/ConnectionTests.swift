import Foundation
import LibPQ
import PostgresTestSupport
import Testing
import TypedSQL

@Suite struct ConnectionTests {
    @Test func connectsAndReportsSessionFacts() async throws {
        try await TestPostgres.withDatabase { connection in
            #expect(connection.isHealthy)
            #expect(!connection.isInTransaction)
            #expect(connection.serverVersion >= 90_000)
            #expect(connection.parameterStatus("server_version")?.isEmpty == false)
            #expect(connection.parameterStatus("client_encoding") == "UTF8")
            #expect(connection.parameterStatus("no_such_parameter") == nil)
            let pid: Int32 = try connection.scalar("SELECT pg_backend_pid()")
            #expect(connection.backendPID == pid)
            let application: String = try connection.scalar("SELECT current_setting('application_name')")
            #expect(application == "tenant-migrate")
        }
    }

    @Test func applicationNameFromTheConnectionStringWins() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let custom = try Connection(conninfo, applicationName: "custom-app")
            #expect(try custom.scalar("SELECT current_setting('application_name')", as: String.self) == "custom-app")
            let fromString = try Connection(conninfo + " application_name=from-string", applicationName: "ignored")
            #expect(try fromString.scalar("SELECT current_setting('application_name')", as: String.self) == "from-string")
        }
    }

    /// The session is normalized to UTF-8 and ISO dates even when the connection asks otherwise.
    @Test func normalizesEncodingAndDateStyle() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo + " client_encoding=LATIN1 options='-c DateStyle=SQL,DMY'")
            #expect(connection.parameterStatus("client_encoding") == "UTF8")
            #expect(try connection.scalar("SHOW DateStyle", as: String.self).hasPrefix("ISO"))
            #expect(try connection.scalar("SELECT $1::text", ["Grüße 😀"], as: String.self) == "Grüße 😀")
            let date: Date = try connection.scalar("SELECT '2024-03-01 12:34:56.5+00'::timestamptz")
            #expect(date == Date(timeIntervalSince1970: 1_709_296_496.5))
        }
    }

    @Test func missingSocketDirectoryNamesHostPortAndReason() throws {
        let directory = "/tmp/nonexistent-dir-\(UUID().uuidString.prefix(8))"
        let error = try expectPostgresError { _ = try Connection("host=\(directory) port=5999") }
        #expect(error.kind == .connection)
        #expect(error.host == directory)
        #expect(error.port == "5999")
        #expect(error.sqlState == nil)
        #expect(error.message.contains("No such file or directory"))
        let description = error.description
        #expect(description.hasPrefix("could not connect to PostgreSQL at host \(directory) port 5999: "))
        #expect(description.contains("No such file or directory"))
        #expect(!description.contains("connection to server on socket"), "libpq's preamble is replaced: \(description)")
    }

    @Test func closedLoopbackPortNamesHostPortAndReason() throws {
        let port = try closedLoopbackPort()
        let error = try expectPostgresError { _ = try Connection("host=127.0.0.1 port=\(port)") }
        #expect(error.kind == .connection)
        #expect(error.host == "127.0.0.1")
        #expect(error.port == String(port))
        #expect(error.description.contains("host 127.0.0.1 port \(port)"))
        #expect(error.description.contains("Connection refused"))
    }

    /// A server that accepts the TCP connection but never answers: connect_timeout must end the wait.
    @Test func connectTimeoutIsHonoured() throws {
        let (error, elapsed, port) = try connectToSilentServer(connectTimeout: 2)
        #expect(error.kind == .connection)
        #expect(error.description.contains("timeout expired"), "\(error)")
        #expect(error.description.contains("port \(port)"))
        // About 2 s; a missing timeout would never end, so the upper bound only needs to be finite
        // (60 s: 30× room for a busy machine).
        #expect(elapsed >= .milliseconds(1500) && elapsed < .seconds(60), "took \(elapsed)")
    }

    @Test func connectTimeoutInTheConnectionStringOverridesTheParameter() throws {
        let (error, elapsed, _) = try connectToSilentServer(options: " connect_timeout=2", connectTimeout: 60)
        #expect(error.description.contains("timeout expired"), "\(error)")
        // connect_timeout=2 against the parameter's 60: 45 s is 20× headroom for a busy machine and
        // still tells the two apart.
        #expect(elapsed < .seconds(45), "took \(elapsed)")
    }

    @Test func wrongPasswordIsReportedAsSuch() async throws {
        let info = try await TestPostgres.server()
        let server = try #require(info.embedded, "needs the embedded test server (with its loopback port)")
        try await TestPostgres.withDatabase { admin in
            let role = "tm_pw_" + UUID().uuidString.prefix(8).lowercased()
            let password = "Right-Pässw0rd!"
            let wrongPassword = "Wr0ng-s3cret-\(UUID().uuidString.prefix(6))"
            try admin.execute("CREATE ROLE \(id: role) LOGIN PASSWORD \(literal: password)")
            defer { _ = try? admin.execute("DROP ROLE \(id: role)") }

            let wrong = try #require(server.tcpConnectionString(user: role, password: wrongPassword))
            let error = try expectPostgresError { _ = try Connection(wrong) }
            #expect(error.kind == .connection)
            #expect(error.sqlState == .invalidPassword)
            #expect(error.sqlState?.rawValue == "28P01")
            #expect(error.message.contains("wrong password"))
            #expect(error.description.contains("127.0.0.1"))
            #expect(!error.description.contains(wrongPassword))
            #expect(!error.description.contains(password))
            #expect(!error.message.contains(wrongPassword))

            do {
                let right = try #require(server.tcpConnectionString(user: role, password: password))
                let connection = try Connection(right)
                #expect(try connection.scalar("SELECT current_user", as: String.self) == role)
                #expect(try connection.scalar("SELECT inet_server_addr()::text", as: String.self).hasPrefix("127.0.0.1"))
            }
        }
    }

    @Test func missingPasswordIsReportedAsSuch() async throws {
        guard ProcessInfo.processInfo.environment["PGPASSWORD"] == nil else { return }
        let info = try await TestPostgres.server()
        let server = try #require(info.embedded)
        let port = try #require(server.tcpPort)
        let error = try expectPostgresError {
            _ = try Connection("host=127.0.0.1 port=\(port) user=postgres dbname=postgres passfile=/nonexistent/tm-no-passfile")
        }
        #expect(error.kind == .connection)
        #expect(error.sqlState == .invalidAuthorizationSpecification)
        #expect(error.message.contains("requires a password"))
    }

    @Test func unknownDatabaseCarriesInvalidCatalogName() async throws {
        let info = try await TestPostgres.server()
        let conninfo = info.connectionString(database: "tm_no_such_database")
        let error = try expectPostgresError { _ = try Connection(conninfo) }
        #expect(error.kind == .connection)
        #expect(error.sqlState == .invalidCatalogName)
        #expect(error.message == "database \"tm_no_such_database\" does not exist", "\(error)")
    }

    @Test func unknownRoleIsAnAuthorizationError() async throws {
        let info = try await TestPostgres.server()
        let conninfo = info.connectionString(database: "postgres") + " user=tm_no_such_role"
        let error = try expectPostgresError { _ = try Connection(conninfo) }
        #expect(error.kind == .connection)
        #expect(error.sqlState == .invalidAuthorizationSpecification)
        #expect(error.message == "role \"tm_no_such_role\" does not exist", "\(error)")
    }
}
