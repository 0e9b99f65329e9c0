import LibPQ

extension PolicyContext {
    /// Archives a value this step is about to destroy or overwrite, so the reverse step can give
    /// it back: `entity` and `attribute` are the **source** version's (an attribute, or a
    /// key-holding to-one), `id` the source row's id. Values are buffered and sent with COPY;
    /// after the step, where the attribute survives, the reverse step restores the value only
    /// into rows that still hold what this step left (compare-and-restore).
    ///
    /// Without an archive (`--no-archive`) this does nothing; declare the loss under `loses:`
    /// so the plan lists it and running it needs consent.
    public func archive(entity: String, id: Int64, attribute: String, value: (any PQEncodable)?) throws {
        locality?.writes(id, "archives \(entity).\(attribute)")
        guard let archive = session.archive else { return }
        let (table, column) = try session.archiveLocation(of: entity, attribute, in: archive)
        try session.runtime { try archive.archive(table: table, column: column, id: id, value: value.flatMap { Self.text(of: $0) }) }
    }

    /// In the reverse step, the value the up step archived for `entity`'s row `id` and
    /// `attribute` (this step's **destination** names), as text that casts back to the
    /// attribute's type; nil when nothing was archived for it (or there is no archive). The
    /// entries of one attribute are read once, in one query.
    ///
    /// Whatever a policy does with it, archived values are also restored set-based after the
    /// step (compare-and-restore), and the entries used are then removed.
    public func archived(entity: String, id: Int64, attribute: String) throws -> String? {
        locality?.writes(id, "reads the archived \(entity).\(attribute)")
        guard let archive = session.archive else { return nil }
        let (table, column) = try StepArchive.location(of: entity, attribute, in: session.destination, schema: archive.destinationSchema)
        return try session.runtime { try archive.archived(table: table, column: column, id: id) } ?? nil
    }

    /// A value's text form, as PostgreSQL reads it back.
    static func text(of value: any PQEncodable) -> String? {
        switch value {
        case let text as String: return text
        default:
            let bind = value.postgresBind
            if bind.format == .binary, let bytes = bind.bytes {   // bytea: its hex text form
                return "\\x" + bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
            }
            return bind.bytes.map { String(decoding: $0, as: UTF8.self) }
        }
    }
}
