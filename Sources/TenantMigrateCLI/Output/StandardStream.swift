import Foundation

/// stdout or stderr, written a whole line (or a whole document) at a time: one `write(2)` per
/// call, so that lines of the two streams never interleave mid-line when both go to one file
/// (`> log 2>&1`), and lines written from several threads stay whole.
///
/// Nothing is buffered: a result is in the file as soon as it is written, in the order it was
/// written in, whichever stream it went to. (swift-log's `StreamLogHandler` and `print` go through
/// C's `FILE` buffers instead: stdout's is flushed 4 KiB at a time when it is not a terminal,
/// wherever that falls in a line, so unbuffered stderr lines land in the middle of stdout's.)
enum StandardStream: Sendable {
    case output, error

    var descriptor: Int32 { self == .output ? STDOUT_FILENO : STDERR_FILENO }

    /// Whether the stream is a terminal (not a file or a pipe).
    var isTerminal: Bool { isatty(descriptor) == 1 }

    /// Writes `text` and a newline in one call.
    func writeLine(_ text: String) {
        write(text + "\n")
    }

    /// Writes `text` as it is, in one call (more only if the kernel takes part of it).
    func write(_ text: String) {
        // What `print` or C's stdio left in stdout's buffer goes first, to keep the order.
        fflush(nil)
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            guard var base = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                let written = Foundation.write(descriptor, base, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // a closed pipe or a full disk: nothing more can be said there
                }
                base += written
                remaining -= written
            }
        }
    }
}
