import EntityModel
import Foundation
import TypedSQL

/// A migration plan, or every adjacent step of a family, as one value that every format renders:
/// the text of `tenant-migrate plan`, its JSON (the value's `Encodable` form), and one
/// self-contained document to read or publish next to the models (`plan --format markdown|html`,
/// `check --format markdown|html`).
///
/// Each section is one step: its versions, its exact SQL, what it archives or loses and how it runs
/// online; a diagram of the step's versions with what is added, removed, renamed, moved or changed
/// marked; the changes as a list; and the step's account as a table (what is carried, transformed,
/// archived or lost, and which mapping or policy is responsible). Render it with ``markdown()`` or
/// ``html(graphviz:)``; its JSON is
///
/// ```
/// {"tenant", "schema", "family", "source", "destination", "direction",
///  "steps": [{"title", "source", "destination", "versions", "statements", "destructiveChanges",
///             "dataDependentLosses", "archived", "lost", "online"}],
///  "givenBack", "onlineRefusal", "onlineLayout", "unsupportedByServer", "keptConstraintNames"}
/// ```
///
/// (The last four only where they say something: why the plan does not run online, and on Citus.)
public struct PlanDocument: Sendable, Encodable {
    /// The document's title: `Recipes: v2 → v3`.
    public var title: String
    /// What the document covers, in a sentence.
    public var summary: String
    /// The tenant, when planned for one.
    public var tenant: String?
    /// The schema the SQL is written for.
    public var schema: String
    /// The family's name.
    public var family: String
    /// The version the plan starts from (for every step of a family: the first version).
    public var source: String
    /// The version the plan ends at (for every step of a family: the last version).
    public var destination: String
    /// The plan's direction; nil for every step of a family, which goes both ways.
    public var direction: MigrationDirection?
    /// One section per step.
    public var sections: [Section]
    /// Planned for a tenant: what its archive gives back on the way (``ArchiveGivenBack``), per
    /// pair the plan crosses (empty when nothing; nil when planned without a tenant).
    public var givenBack: [ArchiveGivenBack]?
    /// Why the plan does not run online, whatever its steps' modes say (``MigrationPlan/onlineKeyRefusal``); nil when it may.
    public var onlineRefusal: String?
    /// What the server refuses of the plan, so that a run refuses it before it starts (on Citus:
    /// ``MigrationPlan/inPlaceSequenceAlterations``); nil when nothing.
    public var unsupportedByServer: [String]?
    /// The foreign keys and checks the plan's steps rename that keep their names on this server
    /// (on Citus: ``MigrationStep/keptConstraintNames``), its steps' statements shown without
    /// those renames; nil when none.
    public var keptConstraintNames: [String]?
    /// Where an online run builds the new version: nil for a private schema beside the tenant's
    /// (plain PostgreSQL), ``OnlineLayout/tenantSchema`` on Citus, which builds it beside the
    /// live tables (``InSchemaOnlineRun``).
    public var onlineLayout: OnlineLayout?

    /// Where an online run builds the new version before it swaps it in.
    public enum OnlineLayout: String, Sendable, Encodable {
        /// Inside the tenant's own schema, under reserved names (`_tm_shadow_…`), as on Citus.
        case tenantSchema = "tenant-schema"
    }

    /// One step.
    public struct Section: Sendable, Encodable {
        /// `Step 1 of 2: v2 → v3`.
        public var heading: String
        /// How the step migrates: `inferred`, `mapped by Recipes/Mappings/v2-to-v3.yaml`, or
        /// `IMPOSSIBLE`.
        public var resolution: String
        /// The step's versions in one diagram, its changes marked.
        public var diagram: ERDiagram
        /// The diagram's marks as sentences.
        public var changes: [String]
        /// The step's account.
        public var rows: [AccountRow]
        /// The SQL (or the description of a policy's stages) the step runs.
        public var statements: [String]
        /// Why the step cannot migrate, when it cannot.
        public var problems: [String]
        /// The step in a line: `v1 → v2: inferred`, `v2 → v3: mapped by …`.
        public var title: String
        /// The version the step starts from.
        public var source: String
        /// The version the step ends at.
        public var destination: String
        /// The versions a fused step walks through (the two ends for any other).
        public var versions: [String]
        /// What the step drops whatever the tenant holds.
        public var destructiveChanges: [DestructiveChange] = []
        /// Losses limited to rows a predicate selects: counted when the step runs.
        public var dataDependentLosses: [DestructiveChange] = []
        /// What the step destroys or overwrites that the archive keeps (it comes back on the way down).
        public var archived: [DestructiveChange] = []
        /// What is truly lost even with the archive (needs `--allow-destructive`).
        public var lost: [DestructiveChange] = []
        /// How the step runs when the tenant migrates online (`--online`), and why.
        public var online: OnlineStepMode?
    }

    /// What happens to one source item.
    public enum Fate: String, Sendable, Hashable {
        /// Kept as it is, in its destination table and column.
        case carried
        /// Read by a rule, expression, mapping or policy that writes what it computes.
        case transformed
        /// Destroyed or overwritten, but copied to the tenant's archive first: it comes back on the
        /// way down.
        case archived
        /// Destroyed for good, even with the archive: running the step needs `--allow-destructive`.
        case lost
    }

    /// One row of a step's account table.
    public struct AccountRow: Sendable, Hashable {
        /// `column recipe.name (Recipe.name)`, with its row filter if any.
        public var source: String
        /// What happens to it.
        public var fate: Fate
        /// Where it goes (`recipe.name`), or how (`policy RecipeTypeToEntree (mapping Recipe)`), or
        /// why it is destroyed.
        public var detail: String
        /// The mapping model or policy responsible, or `inferred`.
        public var responsible: String
        /// Which rows, as the SQL predicate the step counts and archives them with, when
        /// ``source`` names only some rows (it says which in words): for the detail view.
        public var rowsSQL: String? = nil
    }

    /// Who the plan is for: `tenant acme (schema tenant_acme)`, or `schema <tenant schema>`.
    public var subject: String {
        tenant.map { "tenant \($0) (schema \(schema))" } ?? "schema \(schema)"
    }

    /// Every change that drops data, over all steps.
    public var destructiveChanges: [DestructiveChange] { sections.flatMap(\.destructiveChanges) }
    /// Every loss that depends on the tenant's data, over all steps.
    public var dataDependentLosses: [DestructiveChange] { sections.flatMap(\.dataDependentLosses) }
    /// What the archive keeps, over all steps.
    public var archived: [DestructiveChange] { sections.flatMap(\.archived) }
    /// What is truly lost with the archive, over all steps.
    public var lost: [DestructiveChange] { sections.flatMap(\.lost) }
    /// Whether there is no step: the plan's ends are the same version.
    public var isEmpty: Bool { sections.isEmpty }

    /// The document of `plan`, its SQL rendered for `schema` with `.postgreSQL` quoting.
    ///
    /// - Parameter tenant: The tenant the plan is for, if any (`schema` is then its schema).
    /// - Parameter givenBack: For a tenant: what its archive gives back on the way.
    public init(plan: MigrationPlan, tenant: String? = nil, schema: String, givenBack: [ArchiveGivenBack]? = nil) {
        let count = plan.steps.count
        title = "\(plan.family): \(plan.source.name) → \(plan.destination.name)"
        summary = (tenant.map { "The plan for tenant \($0) (schema \(schema))" } ?? "The plan")
            + " from \(plan.source.name) to \(plan.destination.name) (\(plan.direction.rawValue)): \(count) step\(count == 1 ? "" : "s"), "
            + "SQL written for the schema \(schema). Nothing was run."
        self.tenant = tenant
        self.schema = schema
        family = plan.family
        source = plan.source.name
        destination = plan.destination.name
        direction = plan.direction
        sections = plan.steps.enumerated().map { index, step in
            Section(step: step, heading: "Step \(index + 1) of \(count): " + step.versions.map(\.name).joined(separator: " → "), schema: schema)
        }
        self.givenBack = givenBack
        onlineRefusal = plan.onlineKeyRefusal
    }

    /// Every adjacent pair of `planner`'s family, both ways, as `check` sees them: mapped, inferred,
    /// or impossible with the reasons. SQL is written for `schema`.
    public init(checking planner: MigrationPlanner, schema: String = "<tenant schema>") {
        self.init(checks: planner.checkFamily(), of: planner.family, schema: schema)
    }

    /// The document of `checks` (``MigrationPlanner/checkFamily()`` of `family`), from the steps
    /// they were planned as: nothing is planned again. SQL is written for `schema`.
    public init(checks: [MigrationPlanner.PairCheck], of family: ModelFamily, schema: String = "<tenant schema>") {
        let sections = checks.map { check -> Section in
            // A check names two versions of the family, so its path exists.
            let path = try! family.path(from: check.source, to: check.destination)
            let heading = "\(check.source) → \(check.destination)"
            if case let .impossible(reasons) = check.resolution {
                return Section(impossible: path, heading: heading, problems: reasons, changesListed: true)
            }
            guard let step = check.step else {
                return Section(impossible: path, heading: heading, problems: ["the planner found no step"], changesListed: false)
            }
            return Section(step: step, heading: heading, schema: schema)
        }
        let possible = sections.filter(\.problems.isEmpty).count
        title = "\(family.name): every step"
        summary = "Versions \(family.versionNames.joined(separator: " → ")). Each adjacent pair, both ways: "
            + "\(possible) of \(sections.count) steps can migrate. SQL written for the schema \(schema)."
        self.schema = schema
        self.family = family.name
        source = family.versionNames.first ?? ""
        destination = family.versionNames.last ?? ""
        self.sections = sections
    }

    /// The heading of ``givenBack``.
    public static let givenBackHeading = "Given back from the tenant's archive"

    /// What a tenant's archive gives back, in a sentence that introduces ``givenBackLines(_:)``.
    public static func givenBackSummary(_ givenBack: [ArchiveGivenBack]) -> String {
        let total = givenBack.reduce(0) { $0 + $1.entries }
        return "The tenant's archive holds \(total) entr\(total == 1 ? "y" : "ies") that earlier steps the other way took; "
            + "this plan puts them back where the rows still hold what those steps left (compare-and-restore), by the pair that took them:"
    }

    /// One line per pair: `v3 → v2: 7 links of Issue.status, 15 values of Issue.dueDate`.
    public static func givenBackLines(_ givenBack: [ArchiveGivenBack]) -> [String] {
        givenBack.map { "\($0.pair): \($0.items.map(\.sentence).joined(separator: ", "))" }
    }
}

extension PlanDocument.Section {
    init(step: MigrationStep, heading: String, schema: String) {
        let diagram = ERDiagram(changesAlong: VersionPath(versions: step.versions, direction: step.direction))
        var resolution = "inferred"
        var responsible = "inferred"
        if case let .mapped(mapping) = step.kind {
            resolution = "mapped by \(mapping.file)"
            responsible = mapping.file
        } else if step.isFused {
            resolution = "inferred, fused: " + step.versions.map(\.name).joined(separator: " → ")
        }
        self.init(
            heading: heading, resolution: resolution, diagram: diagram, changes: diagram.changeList,
            rows: PlanDocument.AccountRow.rows(of: step.account, responsible: responsible, schema: schema),
            statements: step.describe(inSchema: schema, quoting: .postgreSQL), problems: [],
            title: step.description, source: step.source.name, destination: step.destination.name,
            versions: step.versions.map(\.name), destructiveChanges: step.destructiveChanges,
            dataDependentLosses: step.account.dataDependentLosses, archived: step.account.archivedChanges,
            lost: step.account.lostChanges(archiving: true), online: step.onlineMode
        )
    }

    /// A pair of versions that cannot migrate, for `problems`; its changes listed when `changesListed`.
    init(impossible path: VersionPath, heading: String, problems: [String], changesListed: Bool) {
        let diagram = ERDiagram(changesAlong: path)
        self.init(
            heading: heading, resolution: "IMPOSSIBLE", diagram: diagram, changes: changesListed ? diagram.changeList : [],
            rows: [], statements: [], problems: problems, title: heading + ": IMPOSSIBLE",
            source: path.source.name, destination: path.destination.name, versions: path.versions.map(\.name)
        )
    }
}

extension PlanDocument {
    /// The JSON's keys (see ``PlanDocument``): the plan's facts and each step's, not the prose and
    /// diagrams of the Markdown and HTML forms.
    private enum CodingKeys: String, CodingKey {
        case tenant, schema, family, source, destination, direction, sections = "steps", givenBack
        case onlineRefusal, onlineLayout, unsupportedByServer, keptConstraintNames
    }
}

extension PlanDocument.Section {
    private enum CodingKeys: String, CodingKey {
        case title, source, destination, versions, statements, destructiveChanges, dataDependentLosses, archived, lost, online
    }
}

extension PlanDocument.AccountRow {
    /// The account's entries as table rows. A destroyed item in a named table is archived (the
    /// archive copies it and the way down restores it); one with no table is lost; a value written
    /// over in place is transformed, its old values archived.
    static func rows(of account: StepAccount, responsible: String, schema: String) -> [PlanDocument.AccountRow] {
        account.entries.map { entry in
            var row = row(of: entry, responsible: responsible)
            row.rowsSQL = entry.item.rows.map { $0.sql.text(schema: schema, quoting: .postgreSQL) }
            return row
        }
    }

    private static func row(of entry: StepAccount.Entry, responsible: String) -> PlanDocument.AccountRow {
        let source = entry.item.description
        switch entry.fate {
        case let .carried(location):
            return .init(source: source, fate: .carried, detail: "to \(location)" + (entry.wayBackCheck.map { "; " + $0 } ?? ""), responsible: responsible)
        case let .transformed(by):
            let archive = entry.changedOnly == true ? "; the values it changes go to the archive (the way back carries the others back as they are)"
                : "; the old values go to the archive"
            let detail = "by \(by)" + (entry.overwritesInPlace == true ? archive : "")
                + (entry.wayBackCheck.map { "; " + $0 } ?? "")
            // A policy names itself first: `policy RecipeTypeToEntree (mapping Recipe)`.
            let policy = by.hasPrefix("policy ") ? by.prefix { $0 != "(" }.trimmingCharacters(in: .whitespaces) : nil
            return .init(source: source, fate: .transformed, detail: detail, responsible: policy ?? responsible)
        case let .destroyed(change):
            let fate: PlanDocument.Fate = change.isKeptByArchive ? .archived : .lost
            let detail = change.detail + (change.dependsOnData ? " (where rows match; counted when the step runs)" : "")
            return .init(source: source, fate: fate, detail: detail, responsible: responsible)
        }
    }
}
