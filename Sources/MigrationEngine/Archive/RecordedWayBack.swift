import EntityModel
import Foundation
import LibPQ
import TypedSQL

/// The way back as the way up recorded it with the archive (issue 30, class 6): the archive is
/// self-contained.
///
/// A way up that proves what its way back gives back (``WayBackProof``) archives only the rows the
/// way back would not give back. Its marker entry records what the way back derives (its
/// ``WayBackProof/signature``) and, as the marker's `target`, that declaration as a mapping model
/// of its own (``WayBackProof/recordedModel``: the writing entity mappings, their filters and the
/// proved attributes' expressions) with the table's last row id at the way up.
///
/// If the family's way back is edited or removed before the way down, the way down does not need
/// it as it was: it evaluates the recorded declaration, at its start, for every row of the table
/// up to that last id that has no entry (what the way up did not archive), and keeps those values
/// as entries to restore; it compares the entries the way up copied with what the recorded
/// declaration derives now (an app change wins, the archived value is kept superseded). The file
/// as it is now decides only what the way down gives rows made since.
///
/// The recorded declaration is data, read only from the migrator's own archive table (checked as
/// every use of the archive is, ``TenantArchive/exists(inSchema:on:)``) that no other role may
/// write to, and it is evaluated only where it is the very declaration the marker names and
/// PostgreSQL vouches for it as for any proof (``WayBackTrust``: immutable, reading only the
/// tenant's tables). Otherwise the way down is refused, as before (``WayBackChanged``).
enum RecordedWayBack {
    /// The marker's `target`: `{"mappingModel": …, "lastRow": …, "everyRow": …}`; `everyRow` is
    /// whether the way up archived every row of each of `columns` (the proof's guards withheld it,
    /// ``WayBackProof/Column/spares``): then the archive alone gives back what the way up took.
    static func target(of proof: WayBackProof, columns: [WayBackProof.Column]) -> SQL {
        "pg_catalog.jsonb_build_object('mappingModel', \(bind: .text(proof.recordedModel))::text, "
            + "'lastRow', \(proof.keyed ? "NULL" : "(SELECT pg_catalog.max(tm_l.id) FROM \(table: proof.survivor) AS tm_l)" as SQL), "
            + "'everyRow', \(raw: columns.allSatisfy { !$0.spares } ? "true" : "false"))::text"
    }

    /// What a marker's `target` holds.
    struct Record {
        let mappingModel: String
        /// The table's last row id at the way up; nil: it had no rows.
        let lastRow: Int64?
        /// Whether the way up archived every row of the proved columns (nothing spared); false in
        /// markers of earlier releases.
        let everyRow: Bool

        init?(target: String?) {
            guard let target, let object = try? JSONSerialization.jsonObject(with: Data(target.utf8)) as? [String: Any],
                  let model = object["mappingModel"] as? String else { return nil }
            mappingModel = model
            lastRow = (object["lastRow"] as? NSNumber)?.int64Value
            everyRow = object["everyRow"] as? Bool ?? false
        }
    }

    /// Whether a role other than the archive's owner may write into it (a grant made since it was
    /// created): then nothing it holds is evaluated.
    static let othersMayWrite: SQL = """
        SELECT EXISTS (SELECT FROM pg_catalog.pg_class AS c, pg_catalog.aclexplode(c.relacl) AS a
                       WHERE c.oid = pg_catalog.to_regclass(\(qualifiedNameLiteral: TenantArchive.tableName)) AND a.grantee <> c.relowner
                           AND a.privilege_type IN ('INSERT', 'UPDATE', 'TRUNCATE', 'REFERENCES', 'TRIGGER'))
        """
}

extension WayBackProof {
    /// The way back's declaration of `columns`, as a mapping model file of its own: the writing
    /// entity mappings in the way back's order, each with its filter and the proved attributes'
    /// expressions (strings quoted as JSON, which YAML reads as they are).
    static func recordedModel(of columns: [Column], wayBack: MappingModel) -> String {
        var lines = ["source: \(quoted(wayBack.sourceVersion))", "destination: \(quoted(wayBack.destinationVersion))", "entityMappings:"]
        for mapping in wayBack.entityMappings {
            let written = columns.filter { $0.writer?.name == mapping.name }.compactMap(\.expression)
            guard !written.isEmpty else { continue }
            lines += ["  - name: \(quoted(mapping.name))", "    source: \(quoted(mapping.source))", "    destination: \(quoted(mapping.destination))"]
            if let filter = mapping.filter { lines.append("    filter: \(quoted(filter))") }
            lines.append("    attributes:")
            lines += written.map { "      \(quoted($0.attribute)): \(quoted($0.expression))" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` as a JSON string (DEL escaped too, hex in upper case, as recorded declarations
    /// always were written).
    private static func quoted(_ text: String) -> String {
        JSONString.quoted(text, .recorded)
    }
}

extension StepArchive {
    /// Where the way back's declaration for `table` changed since the way up (its marker's
    /// `signature` is not what this step derives): gives back what the way up took by the
    /// declaration the archive recorded (``RecordedWayBack``), if it can be trusted.
    ///
    /// - Returns: false when it cannot (nothing recorded, another declaration, not vouched for):
    ///   the caller refuses the step.
    func giveBackAsRecorded(_ restore: PairRestore, table: String, signature: String?, target: String?) throws -> Bool {
        guard let wayUp = restore.wayUp, let family = plan.family, let signature, let record = RecordedWayBack.Record(target: target),
              let model = try? MappingModel.load(yaml: record.mappingModel, file: "the way back recorded with the archive", family: family,
                                                 policies: PolicyRegistry()),
              model.sourceVersion == wayUp.destination.name, model.destinationVersion == wayUp.source.name,
              let proof = WayBackProof.proofs(of: wayUp.account, from: wayUp.source, to: wayUp.destination, wayBack: model)
                  .first(where: { $0.table == table }),
              proof.signature == signature,
              try connection.execute(RecordedWayBack.othersMayWrite, schema: schema).first?.decode(Bool.self, at: 0) == false,
              try WayBackTrust(proofs: [proof], destination: wayUp.destination.relationalSchema()).trustedTables(on: connection).contains(table)
        else { return false }
        let key = restore.key
        recordedWayBacks += 1
        for column in proof.columns {
            recordedProofs[key, default: [:]][table + "." + column.name] = (proof.from, WayBackProof.fingerprint(column))
            if !(restorable[key] ?? []).contains(where: { $0 == (table, column.name) }) { restorable[key, default: []].append((table, column.name)) }
            guard let lastRow = record.lastRow else { continue }
            // The rows the way up did not archive: what the recorded way back derives now.
            let entry: SQL = "e.step_from = \(bind: .text(key.from)) AND e.step_to = \(bind: .text(key.to)) AND e.table_name = \(bind: .text(table)) "
                + "AND e.column_name = \(bind: .text(column.name)) AND NOT e.superseded"
            _ = try connection.execute(
                "INSERT INTO \(table: TenantArchive.tableName) (step_from, step_to, table_name, column_name, row_id, value, compares) "
                    + "SELECT \(bind: .text(key.from)), \(bind: .text(key.to)), \(bind: .text(table)), \(bind: .text(column.name)), source.id, "
                    + "(\(column.value))::text, false FROM \(proof.from) WHERE \(column.selects) AND source.id <= \(bind: .integer(lastRow)) "
                    + "AND NOT EXISTS (SELECT FROM \(table: TenantArchive.tableName) AS e WHERE \(entry) AND e.row_id = source.id)",
                schema: schema)
        }
        return true
    }
}
