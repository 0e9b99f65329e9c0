import CLibPQ

/// What judges the statements a caller sends on a connection, before they are sent: the policy
/// runtime's judge of a Swift policy's SQL (`PolicyStatementTrust` in MigrationEngine).
///
/// While a judge is set (``Connection/judging(by:_:)``), every statement the caller hands the
/// connection goes to it first, whatever the entry point: ``Connection/execute(_:)``,
/// ``Connection/script(unsafeSQL:)``, a pipeline, a COPY, or a statement queued for the next
/// round trip. Statements already queued when one is sent are not judged again. The judge runs
/// its own statements with no judge set.
package protocol StatementJudge {
    /// Throws to refuse `statement` before it is sent; `asScript` when it goes through the simple
    /// protocol (which may carry several statements, and no parameters).
    func judge(_ statement: Statement, asScript: Bool, on connection: Connection) throws
}

extension Connection {
    /// Runs `body` with `judge` judging every statement sent (nil: none, for the runtime's own
    /// statements within a judged stretch), and the previous judge back afterwards.
    package func judging<T>(by judge: (any StatementJudge)?, _ body: () throws -> T) rethrows -> T {
        let previous = statementJudge
        statementJudge = judge
        defer { statementJudge = previous }
        return try body()
    }

    /// Hands `statements` to the judge, if one is set, with none set meanwhile.
    func judge(_ statements: [Statement], asScript: Bool = false) throws {
        guard let judge = statementJudge else { return }
        statementJudge = nil
        defer { statementJudge = judge }
        for statement in statements { try judge.judge(statement, asScript: asScript, on: self) }
    }

    /// The types PostgreSQL gives the parameters of `statement` (one statement), as it would when
    /// running it: the unnamed statement is prepared (parsed and analysed, not run) and described.
    /// What is queued goes first. Two round trips.
    package func parameterTypes(of statement: Statement) throws -> [UInt32] {
        try sendQueuedStatements()
        let types = statement.binds.map(\.typeOID)
        countRoundTrip(statements: 1)
        let prepared = types.withUnsafeBufferPointer { PQprepare(handle, "", statement.sql, Int32(types.count), $0.baseAddress) }
        _ = try check(prepared, statement: statement.sql)
        countRoundTrip(statements: 1)
        let description = try check(PQdescribePrepared(handle, ""), statement: statement.sql)
        return description.parameterTypes
    }
}

extension QueryResult {
    /// The parameter types of a described statement.
    var parameterTypes: [UInt32] { (0..<PQnparams(handle)).map { PQparamtype(handle, $0) } }
}
