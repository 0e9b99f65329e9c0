import TypedSQL
import CLibPQ

extension Connection {
    /// Runs `COPY … FROM STDIN` and lets `body` write the rows.
    ///
    /// ```swift
    /// try connection.copyIn("COPY recipe (name, type) FROM STDIN") { writer in
    ///     for recipe in recipes { try writer.writeRow([recipe.name, recipe.type]) }
    /// }
    /// ```
    /// If `body` throws, the COPY is aborted (nothing is inserted) and the error is rethrown.
    /// - Returns: the number of rows the server copied.
    @discardableResult
    public func copyIn(_ sql: SQL, schema: String? = nil, bufferSize: Int = 256 * 1024, _ body: (inout CopyInWriter) throws -> Void) throws -> Int {
        try copyIn(unsafeSQL: sql.renderedInline(schema: schema), bufferSize: bufferSize, body)
    }

    /// ``copyIn(_:schema:bufferSize:_:)`` for `sql` as it is, unchecked.
    @discardableResult
    public func copyIn(unsafeSQL sql: String, bufferSize: Int = 256 * 1024, _ body: (inout CopyInWriter) throws -> Void) throws -> Int {
        try startCopy(sql, expecting: PGRES_COPY_IN, "COPY FROM STDIN")
        var writer = CopyInWriter(connection: self, bufferSize: bufferSize)
        do {
            try body(&writer)
            try writer.flush()
        } catch {
            PQputCopyEnd(handle, "aborted by the client: \(error)")
            _ = try? drainResults(statement: sql)
            throw error
        }
        guard PQputCopyEnd(handle, nil) == 1 else { throw PQError.client(handle, "COPY could not be finished") }
        return try drainResults(statement: sql)?.affectedRows ?? 0
    }

    /// Runs `COPY … TO STDOUT` and streams the data to `onChunk` in chunks of whole rows (about
    /// `chunkSize` bytes each), so memory stays flat however many rows there are.
    ///
    /// If `onChunk` throws, the statement is cancelled and the error is rethrown.
    /// - Returns: the number of rows copied.
    @discardableResult
    public func copyOut(_ sql: SQL, schema: String? = nil, chunkSize: Int = 256 * 1024, _ onChunk: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        try copyOut(unsafeSQL: sql.renderedInline(schema: schema), chunkSize: chunkSize, onChunk)
    }

    /// ``copyOut(_:schema:chunkSize:_:)`` for `sql` as it is, unchecked.
    @discardableResult
    public func copyOut(unsafeSQL sql: String, chunkSize: Int = 256 * 1024, _ onChunk: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        try startCopy(sql, expecting: PGRES_COPY_OUT, "COPY TO STDOUT")
        var chunk: [UInt8] = []
        chunk.reserveCapacity(chunkSize + 4096)
        var failure: (any Error)?
        while true {
            var row: UnsafeMutablePointer<CChar>?
            let length = PQgetCopyData(handle, &row, 0)
            if length == -1 { break }
            if length == -2 { return try drainResults(statement: sql)?.affectedRows ?? 0 }
            guard let row else { continue }
            if failure == nil {
                row.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
                    chunk.append(contentsOf: UnsafeBufferPointer(start: $0, count: Int(length)))
                }
            }
            PQfreemem(row)
            if failure == nil, chunk.count >= chunkSize {
                do { try chunk.withUnsafeBytes(onChunk) } catch {
                    failure = error
                    cancelToken.cancel()
                }
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if failure == nil, !chunk.isEmpty {
            do { try chunk.withUnsafeBytes(onChunk) } catch { failure = error }
        }
        let copied = try? drainResults(statement: sql)
        if let failure { throw failure }
        return (copied ?? nil)?.affectedRows ?? 0
    }

    /// Sends `sql` and checks that the server entered the COPY mode `expected` (`kind` names it in
    /// the error otherwise).
    private func startCopy(_ sql: String, expecting expected: ExecStatusType, _ kind: String) throws {
        try judge([Statement(unsafeSQL: sql)], asScript: true)
        // COPY cannot be pipelined: what is queued goes first, in a round trip of its own.
        try sendQueuedStatements()
        logStatement(sql)
        countRoundTrip(statements: 1)
        let start = PQexec(handle, sql)
        guard let start, PQresultStatus(start) == expected else {
            _ = try check(start, statement: sql)
            throw PQError(kind: .client, message: "the statement is not \(kind): \(sql)")
        }
        PQclear(start)
    }

    /// Reads every pending result; returns the last, or throws the first error.
    func drainResults(statement: String?) throws -> QueryResult? {
        var last: QueryResult?
        var firstError: (any Error)?
        while let result = PQgetResult(handle) {
            do { last = try check(result, statement: statement) } catch { if firstError == nil { firstError = error } }
        }
        if let firstError { throw firstError }
        return last
    }
}
