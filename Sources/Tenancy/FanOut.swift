import LibPQ
import Logging

/// Runs `work` over `items` on `jobs` connections at once, each item on one connection in one
/// call. Items start in order; no new item starts once `control` is stopped.
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
        connections.append(try await AsyncConnection.connect(connectionString, logger: logger))
    }
    for connection in connections {
        let token = connection.cancelToken
        control.onCancel { token.cancel() }
    }
    let outputs = await withTaskGroup(of: [(Int, Output)].self) { group in
        for connection in connections {
            group.addTask {
                var done: [(Int, Output)] = []
                while !control.isStopped, let index = await queue.next() {
                    let item = items[index]
                    let output: Output
                    do {
                        output = try await connection.withConnection { work(item, $0) }
                    } catch {
                        // withConnection itself failed (closed connection): the item did not run.
                        logger.error("connection failed: \(error)")
                        break
                    }
                    done.append((index, output))
                    await onDone(output)
                }
                return done
            }
        }
        var all = [Output?](repeating: nil, count: items.count)
        for await batch in group { for (index, output) in batch { all[index] = output } }
        return all
    }
    for connection in connections { await connection.close() }
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
