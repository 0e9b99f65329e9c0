/// Statements to send as one pipeline, each added with a ``Handle`` by which its result is read
/// back: callers keep handles, not indices counted by hand.
///
/// ```swift
/// var pipeline = Pipeline()
/// pipeline.add(Statement("SAVEPOINT s"))
/// let record = pipeline.add(Statement("SELECT …"))
/// let outcome = try connection.pipelineUntilFailure(pipeline)
/// let rows = outcome[record]  // nil when the pipeline stopped before it
/// ```
public struct Pipeline: Sendable {
    /// A statement's place in its pipeline.
    public struct Handle: Sendable, Hashable {
        fileprivate let index: Int
    }

    /// The statements, in the order they go.
    public private(set) var statements: [Statement] = []

    public init() {}

    /// Adds `statement`; its handle reads its result.
    @discardableResult
    public mutating func add(_ statement: Statement) -> Handle {
        statements.append(statement)
        return Handle(index: statements.count - 1)
    }

    /// Adds `statements`, whose results nobody reads.
    public mutating func add(_ statements: [Statement]) {
        self.statements += statements
    }
}

extension Connection.PipelineOutcome {
    /// The result of `handle`'s statement, or nil when it did not run or failed.
    public subscript(handle: Pipeline.Handle) -> QueryResult? {
        handle.index < results.count ? results[handle.index] : nil
    }

    /// Whether `handle`'s statement is the one that failed.
    public func failed(at handle: Pipeline.Handle) -> Bool {
        failure != nil && results.count == handle.index
    }
}

extension Connection {
    /// ``pipelineUntilFailure(_:)-([Statement])`` of `pipeline`'s statements.
    public func pipelineUntilFailure(_ pipeline: Pipeline) throws -> PipelineOutcome {
        try pipelineUntilFailure(pipeline.statements)
    }

    /// ``pipeline(_:)-([Statement])`` of `pipeline`'s statements; read each result through its handle.
    public func pipeline(_ pipeline: Pipeline) throws -> PipelineOutcome {
        let outcome = try pipelineUntilFailure(pipeline.statements)
        if let failure = outcome.failure { throw failure }
        return outcome
    }
}
