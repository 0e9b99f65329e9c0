import EntityModel
import LibPQ

/// A custom migration for one (source, destination) pair of versions in one direction: the seam
/// for mapping models (YAML entity mappings and Swift migration policies).
///
/// When the family provides a mapping for a pair, the planner uses it instead of inferring the
/// step, exactly as ALIterativeMigrator prefers a custom mapping model.
public protocol MigrationMapping: Sendable {
    /// The version migrated from.
    var sourceVersion: String { get }
    /// The version migrated to.
    var destinationVersion: String { get }
    /// Where the mapping comes from (a file path, or a type name), for plans and errors.
    var origin: String { get }
    /// Where every source column, link and row set goes in this step; the plan's destructive
    /// changes are its destroyed entries.
    func account(from source: ModelVersion, to destination: ModelVersion) -> StepAccount
    /// The SQL (or a description of the Swift stages) the step will run, for `plan`.
    func describe(from source: ModelVersion, to destination: ModelVersion, inSchema schema: String, quoting: some SQLQuoting) -> [String]
    /// Runs the step inside the caller's transaction. `afterSchemaChanges` (the step's
    /// `willMigrate` hook) runs once the new tables and columns exist, before any data moves.
    /// Without `allowDestructive`, a data-dependent loss that finds rows fails the step.
    func run(from source: ModelVersion, to destination: ModelVersion, inSchema schema: String, on connection: Connection,
             allowDestructive: Bool, afterSchemaChanges: (() throws -> Void)?) throws -> StepStatistics
    /// Runs the step with the tenant's archive (nil with `--no-archive`); the default runs it as
    /// without one, treating what the caller archived as consented.
    func run(from source: ModelVersion, to destination: ModelVersion, inSchema schema: String, on connection: Connection,
             allowDestructive: Bool, archive: StepArchive?, afterSchemaChanges: (() throws -> Void)?) throws -> StepStatistics
}

extension MigrationMapping {
    /// Runs the step with the tenant's archive at hand (``StepArchive``): what the account says
    /// the step destroys is archived by the caller, and so needs no consent. A mapping that does
    /// not use the archive runs as without it.
    public func run(from source: ModelVersion, to destination: ModelVersion, inSchema schema: String, on connection: Connection,
                    allowDestructive: Bool, archive: StepArchive?, afterSchemaChanges: (() throws -> Void)?) throws -> StepStatistics {
        try run(from: source, to: destination, inSchema: schema, on: connection, allowDestructive: allowDestructive || archive != nil,
                afterSchemaChanges: afterSchemaChanges)
    }

    /// The data this mapping destroys, for the plan's warnings: the account's destroyed entries.
    public func destructiveChanges(from source: ModelVersion, to destination: ModelVersion) -> [DestructiveChange] {
        account(from: source, to: destination).destructiveChanges
    }
}

/// What one step did.
public struct StepStatistics: Sendable, Codable, Hashable {
    /// Statements executed.
    public var statements: Int = 0
    /// Rows inserted, updated or deleted by data-moving statements.
    public var rowsAffected: Int = 0
    /// Wall time in milliseconds.
    public var milliseconds: Double = 0

    public init(statements: Int = 0, rowsAffected: Int = 0, milliseconds: Double = 0) {
        self.statements = statements
        self.rowsAffected = rowsAffected
        self.milliseconds = milliseconds
    }

    public static func + (lhs: StepStatistics, rhs: StepStatistics) -> StepStatistics {
        StepStatistics(statements: lhs.statements + rhs.statements, rowsAffected: lhs.rowsAffected + rhs.rowsAffected,
                       milliseconds: lhs.milliseconds + rhs.milliseconds)
    }
}

/// A change that loses data that existed: a dropped table or column, a narrowed type, links that a
/// smaller relationship cannot hold. Plans list them; rolling back past one needs explicit consent.
public struct DestructiveChange: Sendable, Codable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Codable {
        /// A table and its rows; a column and its values; values that do not fit a narrower type.
        case dropTable, dropColumn, narrowType
        /// Links a smaller relationship cannot hold; rows of entities that no longer exist.
        case dropLinks, deleteRows
        /// Values of rows whose entity no longer has the property (it moved down into a
        /// sub-entity): the model loses them; the column keeps them unseen.
        case hideValues
        /// Declared by a mapping or policy (`loses:`).
        case custom
    }

    public var kind: Kind
    /// The source table (schema-relative), or "" for a loss declared without one.
    public var table: String
    public var column: String?
    /// Which rows, as an SQL predicate over the source row `source` (nil: all of them).
    public var rows: String?
    /// Whether the loss depends on the tenant's data: values a mapping's filter skips, or that a
    /// mapping or policy declares lost in some rows. Such a loss is not in the plan's
    /// ``MigrationPlan/destructiveChanges``, which need consent up front, but in
    /// ``MigrationPlan/dataDependentLosses``: the step counts the rows before it destroys anything
    /// and fails, naming them, unless consent was given.
    public var dependsOnData: Bool = false
    /// A plain sentence.
    public var detail: String

    public init(kind: Kind, table: String, column: String? = nil, rows: String? = nil, dependsOnData: Bool = false, detail: String) {
        self.kind = kind
        self.table = table
        self.column = column
        self.rows = rows
        self.dependsOnData = dependsOnData
        self.detail = detail
    }

    public var description: String { detail }
}
