import Foundation
import LibPQ
import Logging

/// Runs work over items on `jobs` connections at once, each item on one connection in one
/// call. Items start in order; no new item starts once `control` is stopped or the calling task
/// is cancelled.
///
/// The connections degrade gracefully: if the server refuses some of the extra connections (too
/// many clients), the run goes on with those it got; if a connection dies during an item (the
/// server restarted, an administrator terminated the backend), that item's output stands and the
/// worker reconnects (retrying for up to `reconnectTimeout`, so a server restart
/// costs a pause) and hands the item's output to `recover` on the new connection, for whatever
/// the lost connection could not finish (recording a failure, say), before taking the next item.
///
/// With `renewingAfter`, a worker gives its connection back (closed) after that many items and
/// goes on with a new one. A PostgreSQL backend keeps what it learned of each table it touched for
/// its whole life (relation and catalog cache entries, about 25 kB per schema of two tables), and
/// works through every invalidation that other sessions' DDL sends against all of it: a backend
/// that migrated thousands of schemas holds hundreds of megabytes and burns CPU on each of the
/// other workers' DDL. A new session costs a connection and a few cold catalog lookups.
///
/// The seam a distributed runner could replace: ``FleetExecutor`` and ``TenantLifecycle`` hand it
/// their items and what to do with each, and know nothing of how connections are shared.
struct FanOut: Sendable {
    /// Connections used at once.
    var jobs: Int
    /// Where the connections come from, and go back to.
    var source: ConnectionSource
    /// How long a worker tries to reconnect after its connection died.
    var reconnectTimeout: Duration
    /// Once stopped, no new item starts; a second stop cancels the statements in flight.
    var control: FleetControl
    /// A worker's connection is given back (closed) after this many items, for a new one.
    var renewingAfter: Int? = nil

    /// Runs `work` over `items`; `first`, when given, is the first worker's connection.
    ///
    /// - Returns: each item's result, or nil for items that never started.
    func run<Item: Sendable, Output: Sendable>(
        _ items: [Item],
        first: AsyncConnection? = nil,
        work: @escaping @Sendable (Item, Connection) -> Output,
        recover: (@Sendable (Output, Connection) -> Output)? = nil,
        onDone: @escaping @Sendable (Output) async -> Void
    ) async throws -> [Output?] {
        let queue = WorkQueue(count: items.count)
        let connections = try await openConnections(workers: max(1, min(jobs, items.count)), first: first)
        return await withTaskGroup(of: [(Int, Output)].self) { group in
            for initial in connections {
                group.addTask {
                    await worker(on: initial, items: items, queue: queue, work: work, recover: recover, onDone: onDone)
                }
            }
            var all = [Output?](repeating: nil, count: items.count)
            for await batch in group { for (index, output) in batch { all[index] = output } }
            return all
        }
    }

    /// Up to `workers` connections, `first` among them. Extra connections are tried once: a server
    /// that refuses them is full, not restarting, and the run goes on with those it got.
    private func openConnections(workers: Int, first: AsyncConnection?) async throws -> [AsyncConnection] {
        let logger = source.logger
        var connections: [AsyncConnection] = first.map { [$0] } ?? []
        while connections.count < workers {
            do {
                guard let extra = try await (connections.isEmpty ? source.take(reconnectTimeout) : source.takeExtra()) else {
                    logger.info("the pool has \(connections.count) of \(workers) connections free; going on with \(connections.count)")
                    break
                }
                connections.append(extra)
            } catch where !connections.isEmpty {
                logger.warning("could open only \(connections.count) of \(workers) connections (\(error)); going on with \(connections.count)")
                break
            }
        }
        return connections
    }

    /// One worker: takes items from `queue` until none is left or the run stops, renewing its
    /// connection after ``renewingAfter`` items and reconnecting when it dies. Returns what it did,
    /// by item index.
    private func worker<Item: Sendable, Output: Sendable>(
        on initial: AsyncConnection, items: [Item], queue: WorkQueue,
        work: @escaping @Sendable (Item, Connection) -> Output,
        recover: (@Sendable (Output, Connection) -> Output)?,
        onDone: @escaping @Sendable (Output) async -> Void
    ) async -> [(Int, Output)] {
        let logger = source.logger
        var connection = initial
        var cancelling = CancelArming(connection, control: control)
        var done: [(Int, Output)] = []
        var itemsOnConnection = 0
        while !control.isStopped, !Task.isCancelled {
            if let renewingAfter, itemsOnConnection >= renewingAfter, await queue.hasMore {
                guard let renewed = await renew(connection, cancelling) else { return done }
                (connection, cancelling, itemsOnConnection) = (renewed, CancelArming(renewed, control: control), 0)
            }
            guard let index = await queue.next() else { break }
            itemsOnConnection += 1
            let item = items[index]
            var output: Output
            let healthy: Bool
            do {
                (output, healthy) = try await connection.withConnection { (work(item, $0), $0.isHealthy) }
            } catch {
                // withConnection itself failed (closed connection, cancelled task): the item did not run.
                if !Task.isCancelled { logger.error("connection failed: \(error)") }
                break
            }
            if !healthy {
                await source.giveBack(connection, cancelling.disarm())
                do {
                    connection = try await source.take(reconnectTimeout)
                    cancelling = CancelArming(connection, control: control)
                    itemsOnConnection = 0
                    logger.warning("a connection was lost; reconnected")
                    if let recover {
                        let lost = output
                        output = (try? await connection.withConnection { recover(lost, $0) }) ?? output
                    }
                } catch {
                    logger.error("a connection was lost and reconnecting failed (\(error)); going on with one connection fewer")
                    done.append((index, output))
                    await onDone(output)
                    return done
                }
            }
            done.append((index, output))
            await onDone(output)
        }
        await source.giveBack(connection, cancelling.disarm())
        return done
    }

    /// Gives `connection` back (closed) and takes a fresh session, so the backend's caches do not
    /// grow with the run (see above); nil when none could be opened.
    private func renew(_ connection: AsyncConnection, _ cancelling: CancelArming) async -> AsyncConnection? {
        _ = cancelling.disarm()
        await source.giveBack(connection, false)
        do {
            return try await source.take(reconnectTimeout)
        } catch {
            source.logger.error("could not open a new session (\(error)); going on with one connection fewer")
            return nil
        }
    }
}

/// Lets a fleet's second ``FleetControl/stop()`` cancel the statement on a connection while a
/// worker holds it, and not once the connection is given back (to a pool, where it may serve
/// someone else).
final class CancelArming: Sendable {
    private struct State {
        var token: CancelToken?
        var fired = false
    }

    private let state: Locked<State>

    init(_ connection: AsyncConnection, control: FleetControl) {
        let state = Locked(State(token: connection.cancelToken))
        self.state = state
        control.onCancel {
            state.withLock { state in
                state.fired = state.fired || state.token != nil
                state.token?.cancel()
            }
        }
    }

    /// No more cancels from now on. Returns whether the connection may be reused: no cancel request
    /// was ever sent for it.
    func disarm() -> Bool {
        state.withLock { state in
            state.token = nil
            return !state.fired
        }
    }
}

/// Hands out item indexes, each once.
actor WorkQueue {
    private var nextIndex = 0
    private let count: Int
    init(count: Int) { self.count = count }

    /// Whether an item is left to hand out.
    var hasMore: Bool { nextIndex < count }

    func next() -> Int? {
        guard nextIndex < count else { return nil }
        defer { nextIndex += 1 }
        return nextIndex
    }
}
