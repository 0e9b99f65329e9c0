import LibPQ

extension LeastPrivilegeDatabase {
    /// One of the test's roles and how it connects: the test database, as that role, with the
    /// shared test password.
    struct Login: Sendable {
        let role: String
        let url: String

        init(_ adminURL: String, role: String) {
            self.role = role
            url = LeastPrivilegeDatabase.url(adminURL, user: role)
        }

        /// A new session as the role (its warnings and errors logged only).
        func connect() throws -> Connection { try Connection(url, logger: quietLogger) }
    }
}
