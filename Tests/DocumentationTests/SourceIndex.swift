import Foundation

/// What Sources/ declares, read from the text of its Swift files: enough to tell whether a name
/// a document gives (`TenantMove.run`, `ModelFamily.path(from:to:)`, `Fleet/FanOut.swift`) still
/// exists. Declarations are found by keyword, so a name counts where any file declares it, and a
/// member counts where a file that declares or extends its type declares it.
struct SourceIndex: Sendable {
    /// One Swift file: the types it declares or extends, and the names it declares.
    struct File: Sendable {
        /// Relative to Sources/: `TenantMigrateCLI/Migrating/TenantMove.swift`.
        var path: String
        /// Types declared (at any depth) or extended here, by their last component and in full
        /// (`RowSet`, `StepAccount.RowSet`).
        var types: Set<String>
        /// Every func, var, let, case, init and type name declared here, with each func's first
        /// argument label (`path(from`), `_` for none.
        var members: Set<String>

        /// Whether `member` is declared here; `name(label` also matches a signature whose labels
        /// start on the next line.
        func has(_ member: String) -> Bool {
            if members.contains(member) { return true }
            guard let parenthesis = member.firstIndex(of: "(") else { return false }
            return members.contains(member[...parenthesis] + "*")
        }
    }

    var files: [File]
    /// Folders of Sources/ (`TenantMigrator/Online`), and the module folders (`TenantMigrator`).
    var folders: Set<String>

    static let sources = DocumentedSnippet.repository.appendingPathComponent("Sources")

    /// Sources/ as the tests found it, read once.
    static let current = Result { try load() }

    static func load() throws -> SourceIndex {
        var files: [File] = [], folders: Set<String> = []
        guard let walker = FileManager.default.enumerator(atPath: sources.path) else { return SourceIndex(files: [], folders: []) }
        while let relative = walker.nextObject() as? String {
            let url = sources.appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue { folders.insert(relative); continue }
            guard relative.hasSuffix(".swift") else { continue }
            files.append(read(path: relative, text: try String(contentsOf: url, encoding: .utf8)))
        }
        return SourceIndex(files: files, folders: folders)
    }

    static let keywords = ["func ", "var ", "let ", "case ", "struct ", "class ", "enum ", "protocol ", "actor ", "typealias ", "extension ", "init"]

    static func read(path: String, text: String) -> File {
        var types: Set<String> = [], members: Set<String> = []
        let typeDeclaration = #/(?:^|\s)(?:struct|class|enum|protocol|actor|typealias|extension)\s+([A-Za-z_][\w.]*)/#
        let memberDeclaration = #/(?:^|\s)(?:func|var|let|case|struct|class|enum|protocol|actor|typealias)\s+`?([A-Za-z_]\w*)`?(?:\s*<[^>]*>)?(\()?\s*([A-Za-z_]\w*)?/#
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let code = line.trimmingCharacters(in: .whitespaces)
            if code.hasPrefix("//") { continue }
            // Regexes are slow in debug builds: most lines declare nothing.
            guard Self.keywords.contains(where: { code.contains($0) }) else { continue }
            for match in code.matches(of: typeDeclaration) {
                let name = String(match.1)
                types.insert(name)
                if let last = name.split(separator: ".").last { types.insert(String(last)) }
            }
            for match in code.matches(of: memberDeclaration) {
                let name = String(match.1)
                members.insert(name)
                // A signature whose labels go on the next lines accepts any label (`*`).
                if match.2 != nil { members.insert("\(name)(\(match.3.map(String.init) ?? (code.hasSuffix("(") ? "*" : "_"))") }
            }
            if code.contains("init(") || code.contains("init?(") { members.insert("init") }
        }
        return File(path: path, types: types, members: members)
    }

    /// Whether a type of this name is declared anywhere.
    func declaresType(_ name: String) -> Bool {
        files.contains { $0.types.contains(name) && $0.members.contains(name) }
    }

    /// Whether `member` (`path(from`, or a plain name) is declared in a file of `type`.
    func declares(_ member: String, in type: String) -> Bool {
        files.contains { $0.types.contains(type) && $0.has(member) }
    }

    /// Whether a top-level function or any declaration of this name exists.
    func declaresAnything(named member: String) -> Bool {
        files.contains { $0.has(member) }
    }

    /// Whether Sources/ holds a file or folder whose path ends with `path` (`Fleet/FanOut.swift`,
    /// `Online/`), or a module of that name.
    func hasPath(_ path: String) -> Bool {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        let matches: (String) -> Bool = { $0 == trimmed || $0.hasSuffix("/" + trimmed) }
        return files.contains { matches($0.path) } || folders.contains(where: matches)
    }
}
