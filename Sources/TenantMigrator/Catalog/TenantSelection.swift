/// Which tenants a fleet run touches.
public struct TenantSelection: Sendable, Hashable, Codable {
    /// Only these tenants (all when empty).
    public var names: [String]
    /// Only tenants whose names match this pattern: `*` matches any run of characters, `?` one.
    public var pattern: String?
    /// At most this many of the tenants that need work (a canary batch), in name order.
    public var limit: Int?

    public init(names: [String] = [], pattern: String? = nil, limit: Int? = nil) {
        self.names = names
        self.pattern = pattern
        self.limit = limit
    }

    /// Every tenant.
    public static let all = TenantSelection()

    func includes(_ name: TenantName) -> Bool {
        if !names.isEmpty, !names.contains(name.rawValue) { return false }
        if let pattern, !Self.glob(pattern, matches: name.rawValue) { return false }
        return true
    }

    /// Shell-style matching of `*` and `?`.
    static func glob(_ pattern: String, matches text: String) -> Bool {
        let p = Array(pattern), t = Array(text)
        var pi = 0, ti = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < p.count, p[pi] == "?" || p[pi] == t[ti] { pi += 1; ti += 1 }
            else if pi < p.count, p[pi] == "*" { star = pi; mark = ti; pi += 1 }
            else if star >= 0 { pi = star + 1; mark += 1; ti = mark }
            else { return false }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
