import LibPQ

extension Connection {
    /// Runs a test fixture's script of several statements in one message, outside strict
    /// one-statement mode for this one call.
    ///
    /// For the tests' own setup and inspection SQL only: the product code they exercise runs strict
    /// (the suite turns strict mode on for every connection), so a `;`-joined script in product
    /// code still fails the tests that reach it.
    @discardableResult
    public func fixtureScript(_ sql: String) throws -> QueryResult {
        let strict = isStrictOneStatement
        isStrictOneStatement = false
        defer { isStrictOneStatement = strict }
        return try script(unsafeSQL: sql)
    }
}

extension Connection {
    /// Runs `body` in a transaction that is always rolled back, and returns what it returned: to
    /// look at what a migration would leave, and leave nothing.
    public func rolledBack<T>(_ body: (Connection) throws -> T) throws -> T {
        var result: T?
        do {
            try transaction { connection in
                result = try body(connection)
                throw RolledBack()
            }
        } catch is RolledBack {}
        return result!
    }

    private struct RolledBack: Error {}
}
