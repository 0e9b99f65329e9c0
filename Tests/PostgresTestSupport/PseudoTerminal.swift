import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pseudo-terminal, for tests of what a program draws on a terminal: hand ``terminal`` to a child
/// process as its stderr (or stdout), then ``closeTerminal()`` and read what it wrote with
/// ``output()``. A thread drains the other side as the child writes, so the child never blocks.
public final class PseudoTerminal: @unchecked Sendable {
    /// The terminal side, for the child process.
    public let terminal: FileHandle
    private let controller: Int32
    private let lock = NSLock()
    private var bytes = Data()
    private let finished = DispatchSemaphore(value: 0)

    /// Opens a pseudo-terminal `columns` wide.
    public init(columns: UInt16 = 100) throws {
        controller = Self.c.openpt(O_RDWR | O_NOCTTY)
        guard controller >= 0, Self.c.grantpt(controller) == 0, Self.c.unlockpt(controller) == 0, let name = Self.c.ptsname(controller) else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "no pseudo-terminal: errno \(errno)"])
        }
        let terminalDescriptor = open(name, O_RDWR | O_NOCTTY)
        guard terminalDescriptor >= 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot open \(String(cString: name))"]) }
        var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(terminalDescriptor, UInt(TIOCSWINSZ), &size)
        // Bytes as written: no "\n" → "\r\n" on the way out.
        var settings = termios()
        if tcgetattr(terminalDescriptor, &settings) == 0 {
            settings.c_oflag &= ~tcflag_t(OPOST)
            _ = tcsetattr(terminalDescriptor, TCSANOW, &settings)
        }
        terminal = FileHandle(fileDescriptor: terminalDescriptor, closeOnDealloc: true)
        let reader = Thread { [self] in drain() }
        reader.start()
    }

    /// Reads until every holder of the terminal side has closed it (then `read` fails with EIO).
    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(controller, &buffer, buffer.count)
            if count <= 0 {
                if count < 0, errno == EINTR { continue }
                break
            }
            lock.lock()
            bytes.append(contentsOf: buffer[0..<count])
            lock.unlock()
        }
        finished.signal()
    }

    /// Closes this process's copy of the terminal side: once the child exits, reading ends.
    public func closeTerminal() throws {
        try terminal.close()
    }

    /// Everything written to the terminal, once every writer closed it (waits up to `timeout`).
    public func output(timeout: Duration = .seconds(60)) -> String {
        _ = finished.wait(timeout: .now() + .milliseconds(Int(timeout.components.seconds * 1000)))
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: bytes, as: UTF8.self)
    }

    deinit { close(controller) }

    /// The C library's pseudo-terminal functions, which the Swift overlay does not import (they
    /// need `_XOPEN_SOURCE`), looked up by name.
    private struct CFunctions {
        let openpt: @convention(c) (Int32) -> Int32
        let grantpt: @convention(c) (Int32) -> Int32
        let unlockpt: @convention(c) (Int32) -> Int32
        let ptsname: @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

        init() {
            let library = dlopen(nil, RTLD_NOW)
            func function<F>(_ name: String, _ type: F.Type) -> F {
                guard let symbol = dlsym(library, name) else { fatalError("the C library has no \(name)") }
                return unsafeBitCast(symbol, to: F.self)
            }
            openpt = function("posix_openpt", (@convention(c) (Int32) -> Int32).self)
            grantpt = function("grantpt", (@convention(c) (Int32) -> Int32).self)
            unlockpt = function("unlockpt", (@convention(c) (Int32) -> Int32).self)
            ptsname = function("ptsname", (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)
        }
    }

    private static let c = CFunctions()
}
