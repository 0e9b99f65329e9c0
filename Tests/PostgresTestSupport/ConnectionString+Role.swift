import Foundation

/// `base` (a URL or a keyword/value conninfo) with another user and password, or another
/// database: for tests that connect as several roles.
public func connectionString(_ base: String, user: String? = nil, password: String? = nil, database: String? = nil) -> String {
    if base.hasPrefix("postgres://") || base.hasPrefix("postgresql://"), var components = URLComponents(string: base) {
        if let user { components.user = user; components.password = password }
        if let database { components.path = "/" + database }
        return components.string ?? base
    }
    var result = base
    if let user { result += " user='\(user)'" + (password.map { " password='\($0)'" } ?? "") }
    if let database { result += " dbname='\(database)'" }
    return result
}
