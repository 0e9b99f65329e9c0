/// A `postgres://` or `postgresql://` URI, split the way libpq splits it and checked before libpq
/// sees it.
///
/// libpq's own URI parser quotes the offending part in its error message: the password for a bad
/// `%` escape (`invalid percent-encoded token: "Secret%ZZ"`), the whole URI for an unbalanced `[`.
/// So ``ConnectionString/validate(_:)`` parses the URI here first and reports the problem itself,
/// without quoting any part of it.
///
/// The grammar is libpq's ("Connection URIs"):
/// `postgres[ql]://[user[:password]@][host[:port]][,host[:port]…][/dbname][?key=value&…]`.
/// The user information ends at the first `@` or `/`; a host is a name or `[IPv6]`.
struct ConnectionURI {
    /// Which part of the URI a problem is in, as the user would say it.
    enum Part: String, Sendable {
        case user = "the user name"
        case password = "the password"
        case host = "a host"
        case port = "a port"
        case database = "the database name"
        case parameter = "a query parameter"
    }

    /// What is wrong with a URI. The descriptions never quote the URI's text.
    enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        case invalidPercentEncoding(Part)
        case percentEncodedNul(Part)
        case unbalancedBracket
        case emptyBracket
        case junkAfterBracket
        case atSignOutsideUserInfo(Part)
        case parameterWithoutValue
        case parameterWithSeveralEquals

        var description: String {
            switch self {
            case let .invalidPercentEncoding(part):
                return "\(part.rawValue) has a '%' that is not followed by two hexadecimal digits (write a literal '%' as %25)"
            case let .percentEncodedNul(part):
                return "\(part.rawValue) contains %00, which PostgreSQL does not allow"
            case .unbalancedBracket:
                return "a host starts with '[' but has no matching ']' (an IPv6 address is written [::1])"
            case .emptyBracket:
                return "a host is an empty IPv6 address '[]'"
            case .junkAfterBracket:
                return "a ']' is followed by something other than ':port', ',', '/' or '?'"
            case let .atSignOutsideUserInfo(part):
                return "\(part.rawValue) contains '@'; an '@' or '/' in the user name or password must be written %40 or %2F"
            case .parameterWithoutValue:
                return "a query parameter has no '=' (write key=value)"
            case .parameterWithSeveralEquals:
                return "a query parameter has more than one '=' (write an '=' in a value as %3D)"
            }
        }
    }

    /// A piece of the URI: where it is (byte offsets into the UTF-8 text) and what it is.
    struct Component {
        var part: Part
        var range: Range<Int>
    }

    /// The URI's bytes.
    let bytes: [UInt8]
    /// Every component, in order, still percent-encoded.
    private(set) var components: [Component] = []
    /// Query parameters, as the ranges of their key and value.
    private(set) var parameters: [(key: Range<Int>, value: Range<Int>)] = []

    static let prefixes = ["postgresql://", "postgres://"]

    /// Whether `text` is a URI rather than a key=value conninfo string (as libpq decides).
    static func isURI(_ text: String) -> Bool { prefixes.contains { text.hasPrefix($0) } }

    /// Splits and checks `uri`.
    /// - Throws: ``Problem`` naming what is wrong and where, without quoting the URI.
    init(_ uri: String) throws(Problem) {
        bytes = Array(uri.utf8)
        let prefix = Self.prefixes.first { uri.hasPrefix($0) }?.utf8.count ?? 0
        var position = prefix
        position = parseUserInfo(from: position)
        position = try parseHosts(from: position)
        if position < bytes.count, bytes[position] == UInt8(ascii: "/") {
            let end = bytes[(position + 1)...].firstIndex(of: UInt8(ascii: "?")) ?? bytes.count
            components.append(Component(part: .database, range: (position + 1)..<end))
            position = end
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "?") {
            try parseQuery(from: position + 1)
        }
        try check()
    }

    /// The decoded text of a component.
    func decoded(_ component: Component) -> String? {
        (try? Self.percentDecoded(bytes[component.range], part: component.part)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `user[:password]@`, if there is an `@` before the first `/`.
    private mutating func parseUserInfo(from start: Int) -> Int {
        var position = start
        while position < bytes.count, bytes[position] != UInt8(ascii: "@"), bytes[position] != UInt8(ascii: "/") { position += 1 }
        guard position < bytes.count, bytes[position] == UInt8(ascii: "@") else { return start }
        if let colon = bytes[start..<position].firstIndex(of: UInt8(ascii: ":")) {
            components.append(Component(part: .user, range: start..<colon))
            components.append(Component(part: .password, range: (colon + 1)..<position))
        } else {
            components.append(Component(part: .user, range: start..<position))
        }
        return position + 1
    }

    /// `host[:port]`, separated by commas, up to the `/` or `?` that follows.
    private mutating func parseHosts(from start: Int) throws(Problem) -> Int {
        var position = start
        while true {
            if position < bytes.count, bytes[position] == UInt8(ascii: "[") {
                guard let close = bytes[position...].firstIndex(of: UInt8(ascii: "]")) else { throw .unbalancedBracket }
                guard close > position + 1 else { throw .emptyBracket }
                components.append(Component(part: .host, range: (position + 1)..<close))
                position = close + 1
                if position < bytes.count, !":,/?".utf8.contains(bytes[position]) { throw .junkAfterBracket }
            } else {
                let end = firstIndex(from: position, of: ":,/?")
                components.append(Component(part: .host, range: position..<end))
                position = end
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: ":") {
                let end = firstIndex(from: position + 1, of: ",/?")
                components.append(Component(part: .port, range: (position + 1)..<end))
                position = end
            }
            guard position < bytes.count, bytes[position] == UInt8(ascii: ",") else { return position }
            position += 1
        }
    }

    /// `key=value&…` to the end.
    private mutating func parseQuery(from start: Int) throws(Problem) {
        guard start < bytes.count else { return }
        var position = start
        while position < bytes.count {  // a trailing '&' is allowed, as libpq allows it
            let end = bytes[position...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
            let pair = bytes[position..<end]
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { throw .parameterWithoutValue }
            guard !pair[(equals + 1)...].contains(UInt8(ascii: "=")) else { throw .parameterWithSeveralEquals }
            parameters.append((position..<equals, (equals + 1)..<end))
            components.append(Component(part: .parameter, range: position..<equals))
            components.append(Component(part: .parameter, range: (equals + 1)..<end))
            position = end + 1
        }
    }

    /// Every component decodes; no `@` outside the user information (libpq would split there).
    private func check() throws(Problem) {
        for component in components {
            if component.part != .user, component.part != .password, component.part != .parameter,
               bytes[component.range].contains(UInt8(ascii: "@")) {
                throw .atSignOutsideUserInfo(component.part)
            }
        }
        for component in components { _ = try Self.percentDecoded(bytes[component.range], part: component.part) }
    }

    private func firstIndex(from start: Int, of stops: String) -> Int {
        var position = start
        while position < bytes.count, !stops.utf8.contains(bytes[position]) { position += 1 }
        return position
    }

    /// `%XX` escapes decoded, as libpq decodes them (`+` is not a space).
    static func percentDecoded(_ text: ArraySlice<UInt8>, part: Part) throws(Problem) -> [UInt8] {
        var result: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            guard text[index] == UInt8(ascii: "%") else {
                result.append(text[index])
                index += 1
                continue
            }
            guard index + 2 < text.endIndex, let high = hexValue(text[index + 1]), let low = hexValue(text[index + 2]) else {
                throw .invalidPercentEncoding(part)
            }
            let byte = high << 4 | low
            guard byte != 0 else { throw .percentEncodedNul(part) }
            result.append(byte)
            index += 3
        }
        return result
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
