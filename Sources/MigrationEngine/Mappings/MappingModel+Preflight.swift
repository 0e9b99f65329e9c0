import EntityModel
import Foundation
import LibPQ
import TypedSQL

/// A filter or value expression of a mapping model that PostgreSQL rejects: found by
/// ``MappingModel/checkExpressions(in:on:)`` before any tenant runs it.
public struct MappingExpressionProblem: Error, Sendable, Codable, CustomStringConvertible {
    /// The mapping file and the line of the expression (of the entity mapping, for a problem only
    /// the whole compiled statement shows).
    public var location: SourceLocation
    /// The entity mapping's name.
    public var mapping: String
    /// What was checked: `the filter`, `the value expression of name`, `the compiled statement`.
    public var subject: String
    /// The expression as written in the file (nil for a whole statement).
    public var expression: String?
    /// PostgreSQL's message.
    public var message: String
    /// PostgreSQL's SQLSTATE, such as `42601` for a syntax error.
    public var sqlState: String?

    /// `Recipes/Mappings/v2-to-v3.yaml:10: mapping RecipeToRecipe: the filter "type NOT IN (" is
    /// not valid SQL: ERROR 42601: syntax error at end of input`.
    public var description: String {
        "\(location): mapping \(mapping): \(subject)\(expression.map { " \"\($0)\"" } ?? "") is not valid SQL: "
            + "ERROR \(sqlState ?? "?????"): \(message)"
    }
}

extension MappingModel {
    /// Checks every filter and value expression against PostgreSQL, without touching a tenant.
    ///
    /// In a transaction that is rolled back (a savepoint when the caller has one open), it builds a
    /// scratch schema of the source version, applies the step's renames, additions and data moves
    /// to it as the step would, so the schema is the one the mapping runs against, and PREPAREs each
    /// compiled filter and expression, then each compiled statement of the mapping. Nothing remains
    /// afterwards; the connection needs only the right to create a schema, as `verify` does.
    ///
    /// - Returns: every problem, with the file and line of its filter or expression, PostgreSQL's
    ///   message and SQLSTATE. Empty when PostgreSQL accepts them all.
    /// - Throws: when the scratch schema cannot be built, or the versions are not in `family`.
    public func checkExpressions(in family: ModelFamily, on connection: Connection) throws -> [MappingExpressionProblem] {
        guard let source = family.version(named: sourceVersion), let destination = family.version(named: destinationVersion) else {
            throw VersionNotInFamily("\(file) maps \(sourceVersion) → \(destinationVersion), which family \(family.name) does not have")
        }
        let differ = try differ(across: pair(from: source, to: destination))
        let scratch = "_tm_preflight_" + String(UInt64.random(in: .min ... .max), radix: 16)
        do {
            try connection.transaction { connection in
                try connection.pipeline(try SchemaSnapshot.scratchSchemaStatements(scratch, for: source, on: connection))
                let (before, data, _) = differ.operationsAroundData
                for statement in (before + data).flatMap(\.statements) {
                    try connection.execute(statement, schema: scratch)
                }
                let compiler = MappingCompiler(differ: differ)
                let withoutKeys = setUpKeys(compiler: compiler, in: scratch, on: connection)
                throw Discard(problems: try entityMappings.flatMap { try check($0, compiler: compiler, withoutKeys: withoutKeys, in: scratch, on: connection) })
            }
        } catch let discard as Discard {
            return discard.problems
        }
        preconditionFailure("the preflight transaction must end by rolling back")
    }

    /// The problems of one entity mapping: each expression on its own, then (when they all pass)
    /// the statements compiled from them, which also check the values against their columns.
    private func check(
        _ mapping: EntityMapping, compiler: MappingCompiler, withoutKeys: Set<String>, in scratch: String, on connection: Connection
    ) throws -> [MappingExpressionProblem] {
        guard let table = compiler.sourceTable(of: mapping.source) else { return [] }
        let fallback = mapping.location ?? SourceLocation(file: file, line: 1)
        var problems: [MappingExpressionProblem] = []
        func check(_ expression: String, subject: String, at location: SourceLocation?, query: (SQL, SQL) -> SQL) throws {
            var selection = MappingCompiler.Selection()
            // A key path that does not resolve was reported when the file was loaded.
            guard let compiled = try? compiler.rewrite(expression, from: mapping.source, into: &selection) else { return }
            if let error = try Self.prepareError(query(compiled, selection.from(table)), schema: scratch, on: connection) {
                problems.append(MappingExpressionProblem(location: location ?? fallback, mapping: mapping.name, subject: subject,
                                                         expression: expression, message: error.message, sqlState: error.sqlState?.rawValue))
            }
        }
        if let filter = mapping.filter {
            try check(filter, subject: "the filter", at: mapping.filterLocation) { "SELECT 1 FROM \($1) WHERE (\($0))" }
        }
        if let distinct = mapping.distinct {
            try check(distinct.key, subject: "the distinct key", at: distinct.location) { "SELECT (\($0)) FROM \($1) GROUP BY 1" }
            if let order = distinct.orderBy {
                try check(order, subject: "the orderBy list", at: distinct.orderByLocation) { "SELECT 1 FROM \($1) ORDER BY \($0)" }
            }
        }
        for attribute in mapping.attributes {
            try check(attribute.expression, subject: "the value expression of \(attribute.attribute)", at: attribute.location) { "SELECT (\($0)) FROM \($1)" }
        }
        // A statement over a keys table that could not be made would only repeat that problem.
        guard problems.isEmpty, !withoutKeys.contains(mapping.name),
              !mapping.relationships.contains(where: { !withoutKeys.isDisjoint(with: $0.mappings) }) else { return problems }
        // (A distinct mapping's keys tables were made by `setUpKeys`: DDL cannot be prepared.)
        let setUp = Set(((try? compiler.distinctRows(mapping)) ?? nil)?.setUp ?? [])
        let statements = (((try? compiler.createInstances(mapping)) ?? []) + ((try? compiler.createRelationships(mapping, in: self)) ?? []))
            .filter { !setUp.contains($0) }
        for statement in statements {
            if let error = try Self.prepareError(statement, schema: scratch, on: connection) {
                return [MappingExpressionProblem(location: fallback, mapping: mapping.name, subject: "the compiled statement", expression: nil,
                                                 message: error.message, sqlState: error.sqlState?.rawValue)]
            }
        }
        return []
    }

    /// Makes every distinct mapping's keys table in the (empty) scratch schema, so that the
    /// statements that read it can be prepared. Returns the mappings whose table could not be made:
    /// their key or order is reported on its own.
    private func setUpKeys(compiler: MappingCompiler, in scratch: String, on connection: Connection) -> Set<String> {
        var failed: Set<String> = []
        for mapping in entityMappings {
            guard let rows = try? compiler.distinctRows(mapping) else { continue }
            let offset: SQL = "SELECT pg_catalog.set_config(\(rows.offsetSetting), '0', true)"
            do {
                try connection.savepoint { connection in
                    for statement in [offset] + rows.setUp { try connection.execute(Statement(inlining: statement, schema: scratch)) }
                }
            } catch {
                failed.insert(mapping.name)
            }
        }
        return failed
    }

    /// PostgreSQL's error for `sql`, parsed and analysed but not run (PREPARE, then DEALLOCATE:
    /// prepared statements outlive transactions), in a savepoint so a failure leaves the
    /// transaction usable.
    private static func prepareError(_ sql: SQL, schema: String, on connection: Connection) throws -> PQError? {
        do {
            try connection.savepoint { connection in
                try connection.execute(Statement(inlining: "PREPARE tm_preflight AS \(sql)", schema: schema))
                try connection.execute("DEALLOCATE tm_preflight")
            }
            return nil
        } catch let error as PQError where error.kind == .server {
            return error
        }
    }

    /// Thrown to roll the scratch schema back, carrying what was found.
    private struct Discard: Error {
        let problems: [MappingExpressionProblem]
    }

    /// The mapping names a version its family does not have.
    private struct VersionNotInFamily: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
