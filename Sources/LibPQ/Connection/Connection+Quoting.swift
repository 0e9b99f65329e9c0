import CLibPQ
import Foundation

extension Connection {
    /// Quotes an identifier (schema, table, column name) for SQL text, through libpq's
    /// `PQescapeIdentifier`: `tenant "a"` becomes `"tenant ""a"""`.
    public func quoteIdentifier(_ identifier: String) -> String {
        escape(identifier, with: PQescapeIdentifier)
    }

    /// Quotes a string literal for SQL text, through libpq's `PQescapeLiteral`. Prefer parameters;
    /// use this only where PostgreSQL takes no parameters (DDL defaults, comments).
    public func quoteLiteral(_ literal: String) -> String {
        escape(literal, with: PQescapeLiteral)
    }

    private func escape(
        _ text: String,
        with function: (OpaquePointer?, UnsafePointer<CChar>?, Int) -> UnsafeMutablePointer<CChar>?
    ) -> String {
        let escaped = text.withCString { function(handle, $0, strlen($0)) }
        // libpq fails only on invalid encoding or out of memory; Swift strings are valid UTF-8.
        guard let escaped else { preconditionFailure("libpq could not quote \(text.debugDescription): \(String(cString: PQerrorMessage(handle)))") }
        defer { PQfreemem(escaped) }
        return String(cString: escaped)
    }
}
