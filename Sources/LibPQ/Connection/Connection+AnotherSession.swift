import CLibPQ

extension Connection {
    /// A new session to the same server and database, as the same role, with the options this one
    /// was opened with (its startup settings, and the password, which is neither returned nor
    /// shown): for work that must go on beside this session's own, such as a lease renewed while
    /// this session runs a long statement.
    ///
    /// - Throws: ``PQError`` of kind `.connection`, as ``init(_:connectTimeout:applicationName:searchPath:settings:logger:)``.
    public func anotherSession(applicationName: String) throws -> Connection {
        guard let options = PQconninfo(handle) else {
            throw PQError(kind: .connection, message: "libpq could not read the connection options of the session")
        }
        defer { PQconninfoFree(options) }
        var conninfo: [String] = []
        var option = options
        while let keyword = option.pointee.keyword.map({ String(cString: $0) }) {
            // Options libpq left unset keep their defaults (an empty value would be taken as given);
            // the new session goes by its own name.
            if let value = option.pointee.val.map({ String(cString: $0) }), !value.isEmpty,
               keyword != "application_name", keyword != "fallback_application_name" {
                let quoted = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
                conninfo.append("\(keyword)='\(quoted)'")
            }
            option += 1
        }
        return try Connection(conninfo.joined(separator: " "), applicationName: applicationName, logger: logger)
    }
}
