import CLibPQ
import Foundation

extension Connection {
    /// Sends many statements in libpq pipeline mode, so they cost one round trip, and returns their
    /// results in order.
    ///
    /// The batch is all or nothing. Outside a transaction it runs as one implicit transaction; inside
    /// one, a failure aborts that transaction. Either way, if any statement fails, the statements
    /// after it are skipped, the ones before it are rolled back, and the first error is thrown
    /// (its ``PQError/statement`` names the failing statement).
    @discardableResult
    public func pipeline(_ statements: [Statement]) throws -> [QueryResult] {
        guard !statements.isEmpty else { return [] }
        guard PQenterPipelineMode(handle) == 1 else { throw PQError.client(handle, "could not enter pipeline mode") }
        // Non-blocking, so that sending a large batch cannot deadlock against unread results.
        PQsetnonblocking(handle, 1)
        defer {
            PQexitPipelineMode(handle)
            PQsetnonblocking(handle, 0)
        }
        for (index, statement) in statements.enumerated() {
            logStatement(statement.sql)
            let sent = statement.withParameterArrays { types, values, lengths, formats in
                PQsendQueryParams(handle, statement.sql, Int32(statement.binds.count), types, values, lengths, formats, 0)
            }
            guard sent == 1 else { throw abandonPipeline(PQError.client(handle, "could not queue pipelined statement \(index + 1)", statement: statement.sql)) }
            if index % 64 == 63 { try pumpPipeline(waitForInput: false) }
        }
        guard PQpipelineSync(handle) == 1 else { throw abandonPipeline(PQError.client(handle, "could not send the pipeline sync")) }

        var results: [QueryResult] = []
        var firstError: PQError?
        var statementIndex = 0
        var sawResultForCurrent = false
        while true {
            try pumpPipeline(waitForInput: true)
            while PQisBusy(handle) == 0 {
                guard let result = PQgetResult(handle) else {
                    // The end of one statement's results.
                    if sawResultForCurrent { statementIndex += 1 }
                    sawResultForCurrent = false
                    continue
                }
                switch PQresultStatus(result) {
                case PGRES_PIPELINE_SYNC:
                    PQclear(result)
                    if let firstError { throw firstError }
                    return results
                case PGRES_PIPELINE_ABORTED:
                    PQclear(result)
                    sawResultForCurrent = true
                default:
                    sawResultForCurrent = true
                    let sql = statementIndex < statements.count ? statements[statementIndex].sql : nil
                    do {
                        results.append(try check(result, statement: sql))
                    } catch let error as PQError {
                        if firstError == nil { firstError = error }
                    }
                }
            }
        }
    }

    /// Flushes queued output and, if asked, waits until input arrives and reads it.
    private func pumpPipeline(waitForInput: Bool) throws {
        var pendingOutput = PQflush(handle)
        guard pendingOutput >= 0 else { throw PQError.client(handle, "the connection was lost while sending") }
        if !waitForInput && pendingOutput == 0 { return }
        if !waitForInput {
            // Absorb whatever results arrived so the server is never stuck writing to us.
            guard PQconsumeInput(handle) == 1 else { throw PQError.client(handle, "the connection was lost while reading") }
            return
        }
        repeat {
            guard PQisBusy(handle) == 1 else { return }
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN) | (pendingOutput == 1 ? Int16(POLLOUT) : 0), revents: 0)
            let ready = poll(&descriptor, 1, -1)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { throw PQError(kind: .client, message: "poll failed: \(String(cString: strerror(errno)))") }
            if descriptor.revents & Int16(POLLIN) != 0 {
                guard PQconsumeInput(handle) == 1 else { throw PQError.client(handle, "the connection was lost while reading") }
            }
            pendingOutput = PQflush(handle)
            guard pendingOutput >= 0 else { throw PQError.client(handle, "the connection was lost while sending") }
        } while true
    }

    /// After a send failure: sync and discard everything so the connection stays usable.
    private func abandonPipeline(_ error: PQError) -> PQError {
        PQpipelineSync(handle)
        PQsetnonblocking(handle, 0)
        while true {
            guard let result = PQgetResult(handle) else {
                if PQstatus(handle) != CONNECTION_OK { break }
                continue
            }
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC || PQstatus(handle) != CONNECTION_OK { break }
        }
        return error
    }
}
