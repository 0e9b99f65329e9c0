import Foundation

/// Why a file the command line was given could not be read or written, in words, with its path:
/// `cannot read /srv/tenants.txt: no such file`, not Foundation's
/// `Error Domain=NSCocoaErrorDomain Code=260 … UserInfo={…}`.
enum FileProblem {
    /// The error for a file at `path` that could not be read.
    static func reading(_ path: String, _ error: any Error) -> CLIError {
        CLIError("cannot read \(path): \(readReason(path, error))")
    }

    /// The error for a file at `path` that could not be written.
    static func writing(_ path: String, _ error: any Error) -> CLIError {
        CLIError("cannot write \(path): \(writeReason(path, error))")
    }

    private static func readReason(_ path: String, _ error: any Error) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return "no such file" }
        if isDirectory.boolValue { return "it is a directory, not a file" }
        if let code = (error as? CocoaError)?.code, code == .fileReadInapplicableStringEncoding || code == .fileReadCorruptFile {
            return "it is not UTF-8 text"
        }
        return systemReason(error)
    }

    private static func writeReason(_ path: String, _ error: any Error) -> String {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            return "the directory \(directory) does not exist"
        }
        if !isDirectory.boolValue { return "\(directory) is not a directory" }
        return systemReason(error)
    }

    /// The operating system's reason (`Permission denied`), or Foundation's description.
    private static func systemReason(_ error: any Error) -> String {
        let error = error as NSError
        let posix = error.domain == NSPOSIXErrorDomain ? error : error.userInfo[NSUnderlyingErrorKey] as? NSError
        if let posix, posix.domain == NSPOSIXErrorDomain, let reason = strerror(Int32(posix.code)) {
            return String(cString: reason)
        }
        return error.localizedDescription
    }
}
