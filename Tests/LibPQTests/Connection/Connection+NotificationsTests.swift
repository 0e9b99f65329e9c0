import Foundation
import LibPQ
import PostgresTestSupport
import Testing

@Suite struct ConnectionNotificationsTests {
    @Test func listenReceivesCommittedNotificationsOnly() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let listener = try Connection(conninfo)
            let sender = try Connection(conninfo)
            try listener.listen("Tenant Changes")
            #expect(try listener.waitForNotifications(timeout: .milliseconds(50)).isEmpty)

            try sender.execute("SELECT pg_catalog.pg_notify($1, $2)", ["Tenant Changes", "acme"])
            let received = try listener.waitForNotifications(timeout: .seconds(10))
            #expect(received.map(\.payload) == ["acme"])
            #expect(received.first?.channel == "Tenant Changes" && received.first?.senderPID == sender.backendPID)

            // Sent in a transaction that rolls back: never delivered.
            try? sender.transaction { connection in
                try connection.execute("SELECT pg_catalog.pg_notify($1, 'rolled back')", ["Tenant Changes"])
                throw CancellationError()
            }
            try sender.execute("SELECT pg_catalog.pg_notify($1, 'other channel')", ["elsewhere"])
            #expect(try listener.waitForNotifications(timeout: .milliseconds(200)).isEmpty)
            #expect(try listener.notifications().isEmpty)
        }
    }

    @Test func waitingEndsWhenTheBackendIsTerminated() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let listener = try Connection(conninfo)
            let admin = try Connection(conninfo)
            try listener.listen("changes")
            #expect(listener.isReusable && listener.transactionStatus == .idle)
            try admin.execute("SELECT pg_terminate_backend($1)", [listener.backendPID])
            let started = ContinuousClock.now
            #expect(throws: PQError.self) {
                while ContinuousClock.now - started < .seconds(10) { _ = try listener.waitForNotifications(timeout: .seconds(1)) }
            }
            #expect(!listener.isReusable)
        }
    }

    @Test func isReusableNoticesATerminatedIdleBackendWithoutARoundTrip() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo)
            let admin = try Connection(conninfo)
            #expect(connection.isReusable)
            try connection.execute("BEGIN")
            #expect(connection.transactionStatus == .inTransaction && !connection.isReusable)
            try connection.execute("ROLLBACK")
            #expect(connection.isReusable)
            try admin.execute("SELECT pg_terminate_backend($1)", [connection.backendPID])
            let started = ContinuousClock.now
            while connection.isReusable, ContinuousClock.now - started < .seconds(10) { try await Task.sleep(for: .milliseconds(10)) }
            #expect(!connection.isReusable)
            // libpq may not have seen the closed socket yet (isHealthy can still say true here);
            // the next statement finds out, and the connection is bad from then on.
            #expect(throws: PQError.self) { try connection.execute("SELECT 1") }
            #expect(!connection.isHealthy && !connection.isReusable)
        }
    }
}
