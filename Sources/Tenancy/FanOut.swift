import LibPQ
import Logging

/// Runs `work` over `items` on `jobs` connections at once, each item on one connection in one
/// call. Items start in order; no new item starts once `control` is stopped or the calling task
/// is cancelled.
///
/// The connections degrade gracefully: if the server refuses some of the extra connections (too
/// many clients), the run goes on with those it got; if a connection dies during an item (the
/// server restarted, an administrator terminated the backend), that item's output stands and the
/// worker reconnects before taking the next one, rather than failing every item it takes after.
///
/// - Returns: each item's result, or nil for items that never started.
func fanOut<Item: Sendable, Output: Sendable>(
    _ items: [Item],
    jobs: Int,
    connectionString: String,
    logger: Logger,
    control: FleetControl,
    firstConnection: AsyncConnection? = nil,
    work: @escaping @Sendable (Item, Connection) -> Output,
    onDone: @escaping @Sendable (Output) async -> Void
) async throws -> [Output?] {
    let queue = WorkQueue(count: items.count)
    let workers = max(1, min(jobs, items.count))
    var connections: [AsyncConnection] = []
    if let firstConnection { connections.append(firstConnection) }
    while connections.count < workers {
        do {
            connections.append(try await AsyncConnection.connect(connectionString, logger: logger))
        } catch where !connections.isEmpty {
            logger.warning("could open only \(connections.count) of \(workers) connections (\(error)); going on with \(connections.count)")
            break
        }
    }
    for connection in connections {
        let token = connection.cancelToken
        control.onCancel { token.cancel() }
    }
    let outputs = await withTaskGroup(of: [(Int, Output)].self) { group in
        for initial in connections {
            group.addTask {
                var connection = initial
                var done: [(Int, Output)] = []
                while !control.isStopped, !Task.isCancelled, let index = await queue.next() {
                    let item = items[index]
                    let output: Output
                    let healthy: Bool
                    do {
                        (output, healthy) = try await connection.withConnection { (work(item, $0), $0.isHealthy) }
                    } catch {
                        // withConnection itself failed (closed connection, cancelled task): the item did not run.
                        if !Task.isCancelled { logger.error("connection failed: \(error)") }
                        break
                    }
                    done.append((index, output))
                    await onDone(output)
                    if !healthy {
                        await connection.close()
                        guard !control.isStopped, !Task.isCancelled else { break }
                        do {
                            connection = try await AsyncConnection.connect(connectionString, logger: logger)
                            let token = connection.cancelToken
                            control.onCancel { token.cancel() }
                            logger.warning("a connection was lost; reconnected")
                        } catch {
                            logger.error("a connection was lost and reconnecting failed (\(error)); going on with one connection fewer")
                            return done
                        }
                    }
                }
                await connection.close()
                return done
            }
        }
        var all = [Output?](repeating: nil, count: items.count)
        for await batch in group { for (index, output) in batch { all[index] = output } }
        return all
    }
    return outputs
}

/// Hands out item indexes, each once.
actor WorkQueue {
    private var nextIndex = 0
    private let count: Int
    init(count: Int) { self.count = count }

    func next() -> Int? {
        guard nextIndex < count else { return nil }
        defer { nextIndex += 1 }
        return nextIndex
    }
}
