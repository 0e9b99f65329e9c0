extension Connection {
    /// Whether extension `name` is installed in the connected database (`pg_extension`).
    ///
    /// Asked of the server once per connection and name, then remembered: an extension created or
    /// dropped later is seen by connections opened after that.
    public func hasExtension(_ name: String) throws -> Bool {
        if let known = knownExtensions[name] { return known }
        let found = try execute(
            "SELECT EXISTS (SELECT FROM pg_catalog.pg_extension WHERE extname = $1)", [name]
        ).first?.decode(Bool.self, at: 0) ?? false
        knownExtensions[name] = found
        return found
    }
}
