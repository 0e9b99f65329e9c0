// The string entry points of before issue 32, kept while the online run's statements (TenantMigrator/Online,
// MigrationEngine/Online) move to typed SQL; they go when the last caller has moved.
//
// They are disfavoured, and take their parameters as a literal of a type of their own, so that a
// string literal (with or without `$n` parameters) is typed ``SQL``: only a `String` built as text
// reaches them.

extension Statement {
    /// Transitional: build typed SQL (id:, table:, literal:, bind:), or say Statement(unsafeSQL:).
    @_disfavoredOverload
    public init(_ sql: String, _ parameters: StringStatementParameters = []) {
        self.init(unsafeSQL: sql, parameters.values)
    }
}

extension Connection {
    /// Transitional: build typed SQL (id:, table:, literal:, bind:), or say execute(unsafeSQL:).
    @_disfavoredOverload
    @discardableResult
    public func execute(_ sql: String, _ parameters: StringStatementParameters = []) throws -> QueryResult {
        try execute(unsafeSQL: sql, parameters.values)
    }

    /// Transitional: build typed SQL (id:, table:, literal:), or say script(unsafeSQL:).
    @_disfavoredOverload
    @discardableResult
    public func script(_ sql: String) throws -> QueryResult {
        try script(unsafeSQL: sql)
    }

    /// Transitional: build typed SQL (id:, table:, literal:), or say copyIn(unsafeSQL:).
    @_disfavoredOverload
    @discardableResult
    public func copyIn(_ sql: String, bufferSize: Int = 256 * 1024, _ body: (inout CopyInWriter) throws -> Void) throws -> Int {
        try copyIn(unsafeSQL: sql, bufferSize: bufferSize, body)
    }

    /// Transitional: build typed SQL (id:, table:, literal:), or say copyOut(unsafeSQL:).
    @_disfavoredOverload
    @discardableResult
    public func copyOut(_ sql: String, chunkSize: Int = 256 * 1024, _ onChunk: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        try copyOut(unsafeSQL: sql, chunkSize: chunkSize, onChunk)
    }
}

/// Transitional: the parameters of a statement given as a `String`, written as an array literal
/// (`[tenant, version]`). A type of its own, not an array, so that a string literal with an array
/// of parameters is typed ``SQL`` (an array literal of this type costs the solver more than a
/// string literal of type ``SQL``).
public struct StringStatementParameters: ExpressibleByArrayLiteral {
    let values: [(any PQEncodable)?]

    public init(arrayLiteral values: (any PQEncodable)?...) {
        self.values = values
    }
}
