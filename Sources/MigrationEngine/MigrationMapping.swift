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
    /// The data this mapping drops, for the plan's warnings.
    func destructiveChanges(from source: ModelVersion, to destination: ModelVersion) -> [DestructiveChange]
    /// The SQL (or a description of the Swift stages) the step will run, for `plan`.
    func describe(from source: ModelVersion, to destination: ModelVersion, inSchema schema: String, quoting: some SQLQuoting) -> [String]
    /// Runs the step inside the caller's transaction.
    func run(from source: ModelVersion, to destination: ModelVersion, inSchema schema: String, on connection: Connection) throws -> StepStatistics
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
        case dropTable, dropColumn, narrowType, dropLinks, deleteRows, custom
    }

    public var kind: Kind
    public var table: String
    public var column: String?
    /// A plain sentence.
    public var detail: String

    public init(kind: Kind, table: String, column: String? = nil, detail: String) {
        self.kind = kind
        self.table = table
        self.column = column
        self.detail = detail
    }

    public var description: String { detail }
}
