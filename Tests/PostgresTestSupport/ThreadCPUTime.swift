#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The processor time the calling thread has used so far (`CLOCK_THREAD_CPUTIME_ID`): the work
/// a computation on one thread did, which other processes on a busy machine do not stretch as they
/// stretch wall-clock time.
public func threadCPUTime() -> Duration {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
}

/// Runs `body` (which must do its work on the calling thread) and returns its result with the
/// processor time it took (``threadCPUTime()``).
public func measuringThreadCPUTime<T>(_ body: () throws -> T) rethrows -> (result: T, time: Duration) {
    let start = threadCPUTime()
    let result = try body()
    return (result, threadCPUTime() - start)
}

/// How many times longer `large` took than `small`: for telling linear work from quadratic.
public func ratio(_ large: Duration, to small: Duration) -> Double {
    large / max(small, .microseconds(1))
}
