import MigrationEngine

/// What a step destroys or overwrites, in the one vocabulary `plan` and `check` share:
///
/// - **archived**: copied to the tenant's archive first, given back on the way down; no consent needed;
/// - **lost**: gone for good, as a mapping or policy declares under `loses:`; running it needs
///   `--allow-destructive`. With `--no-archive`, everything archived is lost too;
/// - either may **depend on the data**: only rows a predicate selects, counted when the step runs.
struct LossListing {
    let archived: [DestructiveChange]
    let lost: [DestructiveChange]
    let dataDependent: [DestructiveChange]

    init(archived: [DestructiveChange], lost: [DestructiveChange], dataDependent: [DestructiveChange]) {
        self.archived = archived
        self.lost = lost
        self.dataDependent = dataDependent
    }

    /// A step's losses, with the archive on.
    init(_ account: StepAccount) {
        self.init(archived: account.archivedChanges, lost: account.lostChanges(archiving: true), dataDependent: account.dataDependentLosses)
    }

    var isEmpty: Bool { archived.isEmpty && lost.isEmpty }

    /// One line per item, `archived: …` or `lost: …`, for `check`.
    var taggedLines: [String] {
        archived.map { "archived: " + text($0) } + lost.map { "lost: " + text($0) }
    }

    /// The item's sentence, marked when it depends on the data.
    func text(_ change: DestructiveChange) -> String {
        change.detail + (dataDependent.contains(change) ? " (depends on the data: counted when the step runs)" : "")
    }

    /// The headings `plan` lists the items under.
    static let archivedHeading = "ARCHIVED: copied to the tenant's archive first and given back on the way down (no consent needed):"
    static let lostHeading = "LOST: declared lost under `loses:`, gone for good (running it needs --allow-destructive):"
    static let noArchiveNote = "With --no-archive, everything archived is lost too, and needs --allow-destructive."
}
