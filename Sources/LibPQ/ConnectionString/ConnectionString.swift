import CLibPQ
import Foundation

/// Helpers for conninfo strings and `postgres://` URIs, and the one place that keeps their
/// passwords out of messages and logs.
public enum ConnectionString {
    /// The string with any password replaced by `***`, for logs and messages.
    ///
    /// Both forms are handled: `postgres://user:secret@host/db?password=x` and
    /// `host=h password=secret`. For a URI that is not valid, everything that could be the password
    /// is replaced (from the first `:` of the user information to the last `@`). A key=value string
    /// that libpq cannot parse is not printed at all.
    public static func redacted(_ conninfo: String) -> String {
        if ConnectionURI.isURI(conninfo) {
            return replacing(secretRanges(inURI: conninfo), in: conninfo)
        }
        guard let options = parse(conninfo) else { return "<unparseable connection string>" }
        return options.map { key, value in
            "\(key)=\(key == "password" ? "***" : quoteValue(value))"
        }.joined(separator: " ")
    }

    /// Checks what libpq would otherwise reject with a message that quotes the string, and so
    /// perhaps its password: a URI's shape and percent-encoding, and the key=value syntax.
    ///
    /// - Throws: ``PQError`` of kind `.connection` that names the problem and shows the
    ///   string only ``redacted(_:)``, e.g. `invalid connection URI postgres://u:***@host/db: the
    ///   password has a '%' that is not followed by two hexadecimal digits`.
    public static func validate(_ conninfo: String) throws {
        if ConnectionURI.isURI(conninfo) {
            do {
                _ = try ConnectionURI(conninfo)
            } catch {
                throw PQError(kind: .connection, message: "invalid connection URI \(redacted(conninfo)): \(error)")
            }
        } else if !conninfo.isEmpty {
            var errorMessage: UnsafeMutablePointer<CChar>?
            guard let options = PQconninfoParse(conninfo, &errorMessage) else {
                let reason = errorMessage.map { String(cString: $0).trimmingTrailingWhitespace() } ?? "libpq cannot parse it"
                if let errorMessage { PQfreemem(errorMessage) }
                throw PQError(kind: .connection, message: "invalid connection string: \(conninfoProblem(reason))")
            }
            PQconninfoFree(options)
        }
    }

    /// The passwords in `conninfo`, as written and decoded: what must never reach output.
    public static func secrets(in conninfo: String) -> [String] {
        var secrets: [String] = []
        if ConnectionURI.isURI(conninfo) {
            let bytes = Array(conninfo.utf8)
            for range in secretRanges(inURI: conninfo) {
                let raw = bytes[range]
                secrets.append(String(decoding: raw, as: UTF8.self))
                if let decoded = try? ConnectionURI.percentDecoded(raw, part: .password) {
                    secrets.append(String(decoding: decoded, as: UTF8.self))
                }
            }
        } else if let options = parse(conninfo) {
            secrets = options.filter { $0.key == "password" }.map(\.value)
        }
        return Set(secrets.filter { !$0.isEmpty }).sorted { $0.count > $1.count }
    }

    /// `text` with every password of `conninfo` replaced by `***`: for messages that libpq or the
    /// server built and that might quote the connection string.
    public static func scrubbing(_ text: String, secretsOf conninfo: String) -> String {
        secrets(in: conninfo).reduce(text) { $0.replacingOccurrences(of: $1, with: "***") }
    }

    /// Parses a conninfo string or URI through libpq into its keywords and values, in libpq's order
    /// (only the keywords that were set). Returns nil if libpq cannot parse it.
    public static func parse(_ conninfo: String) -> [(key: String, value: String)]? {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &errorMessage) else {
            if let errorMessage { PQfreemem(errorMessage) }
            return nil
        }
        defer { PQconninfoFree(options) }
        var result: [(String, String)] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { result.append((String(cString: keyword), String(cString: value))) }
            option += 1
        }
        return result
    }

    private static func quoteValue(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0.isWhitespace || $0 == "'" || $0 == "\\" }
        guard needsQuotes else { return value }
        return "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    /// libpq's reason for rejecting a key=value string, in words of our own: libpq's messages quote
    /// the string (`missing "=" after "…"`, `invalid connection option "…"`), and a string that is
    /// not key=value may be a password pasted by mistake, so nothing of it is shown.
    private static func conninfoProblem(_ reason: String) -> String {
        if reason.contains("missing \"=\"") {
            return "a word has no '=' after it (write key=value, or a postgres:// URI; quote a value with spaces: password='a b')"
        }
        if reason.contains("unterminated quoted string") { return "a quoted value has no closing quote" }
        if reason.contains("invalid connection option") {
            let quoted = reason.split(separator: "\"", omittingEmptySubsequences: false)
            let suggestion = quoted.count >= 3 ? keyword(near: String(quoted[1])) : nil
            return "it has an unknown keyword" + (suggestion.map { "; did you mean \($0)?" }
                ?? " (quote a value with spaces: password='a b')")
        }
        return "libpq cannot parse it"
    }

    /// Byte ranges of a URI's passwords: the one in the user information and every `password=`
    /// query value. For a URI that does not parse, the ranges err on the side of hiding too much.
    private static func secretRanges(inURI uri: String) -> [Range<Int>] {
        if let parsed = try? ConnectionURI(uri) {
            var ranges = parsed.components.filter { $0.part == .password }.map(\.range)
            for parameter in parsed.parameters
            where (try? ConnectionURI.percentDecoded(parsed.bytes[parameter.key], part: .parameter)) == Array("password".utf8) {
                ranges.append(parameter.value)
            }
            return ranges.filter { !$0.isEmpty }
        }
        let bytes = Array(uri.utf8)
        let start = ConnectionURI.prefixes.first { uri.hasPrefix($0) }?.utf8.count ?? 0
        var ranges: [Range<Int>] = []
        var queryStart = start
        if let at = bytes[start...].lastIndex(of: UInt8(ascii: "@")) {
            if let colon = bytes[start..<at].firstIndex(of: UInt8(ascii: ":")) { ranges.append((colon + 1)..<at) }
            queryStart = at
        }
        if let question = bytes[queryStart...].firstIndex(of: UInt8(ascii: "?")) {
            var position = question + 1
            while position < bytes.count {
                let end = bytes[position...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
                if let equals = bytes[position..<end].firstIndex(of: UInt8(ascii: "=")) {
                    let key = try? ConnectionURI.percentDecoded(bytes[position..<equals], part: .parameter)
                    if key == nil || key == Array("password".utf8) { ranges.append((equals + 1)..<end) }
                } else {
                    ranges.append(position..<end)
                }
                position = end + 1
            }
        }
        return ranges.filter { !$0.isEmpty }
    }

    /// `text` with each byte range replaced by `***`.
    private static func replacing(_ ranges: [Range<Int>], in text: String) -> String {
        var bytes = Array(text.utf8)
        for range in ranges.sorted(by: { $0.lowerBound > $1.lowerBound }) {
            bytes.replaceSubrange(range, with: Array("***".utf8))
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
