// The string entry points of before issue 32, kept while callers move to typed SQL module by
// module, so that each step builds; they go when the last caller has moved. A string literal picks
// them while they exist (String is the literals' default type), which sends the same text.

extension Statement {
    /// Transitional: build typed SQL (id:, table:, literal:, bind:), or say Statement(unsafeSQL:).
    public init(_ sql: String, _ parameters: [(any PQEncodable)?] = []) {
        self.init(unsafeSQL: sql, parameters)
    }

    /// Transitional: build typed SQL (id:, table:, literal:, bind:), or say Statement(unsafeSQL:binds:).
    public init(_ sql: String, binds: [PQBind]) {
        self.init(unsafeSQL: sql, binds: binds)
    }
}

extension Connection {
    /// Transitional: build typed SQL (id:, table:, literal:, bind:), or say execute(unsafeSQL:).
    @discardableResult
    public func execute(_ sql: String, _ parameters: [(any PQEncodable)?] = []) throws -> QueryResult {
        try execute(unsafeSQL: sql, parameters)
    }

    /// Transitional: build typed SQL (id:, table:, literal:), or say script(unsafeSQL:).
    @discardableResult
    public func script(_ sql: String) throws -> QueryResult {
        try script(unsafeSQL: sql)
    }

    /// Transitional: build typed SQL (id:, table:, literal:), or say copyIn(unsafeSQL:).
    @discardableResult
    public func copyIn(_ sql: String, bufferSize: Int = 256 * 1024, _ body: (inout CopyInWriter) throws -> Void) throws -> Int {
        try copyIn(unsafeSQL: sql, bufferSize: bufferSize, body)
    }

    /// Transitional: build typed SQL (id:, table:, literal:), or say copyOut(unsafeSQL:).
    @discardableResult
    public func copyOut(_ sql: String, chunkSize: Int = 256 * 1024, _ onChunk: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        try copyOut(unsafeSQL: sql, chunkSize: chunkSize, onChunk)
    }
}
