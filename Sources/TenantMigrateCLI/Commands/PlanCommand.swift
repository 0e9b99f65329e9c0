import ArgumentParser
import MigrationEngine
import TenantMigrator
import TypedSQL

/// `tenant-migrate plan`: the steps, their exact SQL and what they archive or lose. Runs nothing.
struct PlanCommand<Runner: TenantMigrateRunner>: ReportingCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "plan",
            abstract: "Show the steps, the exact SQL and what a migration archives or loses, without running it.",
            discussion: """
                With --tenant, plans from the tenant's recorded version to --to (the latest by default), \
                rendered for the tenant's schema, and lists what the tenant's archive gives back on the way \
                (entries that earlier steps the other way archived, per step). With --from and --to, plans between two versions, \
                rendered for --schema. The filters and expressions of the mapping models on the way \
                are checked against PostgreSQL first (in a transaction that is rolled back). With \
                --offline (and --from), no database is used at all: the SQL is rendered as it would be \
                against one, without that check.
                """
        )
    }

    @OptionGroup var options: RunnerOptions<Runner>
    @Option(help: ArgumentHelp("Plan for this tenant, from its recorded version.", valueName: "name")) var tenant: String?
    @Option(help: ArgumentHelp("Plan from this version (instead of --tenant).", valueName: "v")) var from: String?
    @Option(help: ArgumentHelp("The target version. Default with --tenant: the latest.", valueName: "v")) var to: String?
    @Option(help: ArgumentHelp("With --from: the schema to render the SQL for.", valueName: "schema")) var schema: String = "<tenant schema>"
    @Flag(help: "With --from: render the plan without a database (no expression check).") var offline = false
    @OptionGroup var output: OutputOptions<PlanReport>

    func validate() throws {
        switch (tenant, from) {
        case (nil, nil): throw ValidationError("give --tenant NAME [--to V], or --from A --to B")
        case (.some, .some): throw ValidationError("give either --tenant or --from, not both")
        case (nil, .some) where to == nil: throw ValidationError("--from needs --to")
        case (.some, nil) where offline: throw ValidationError("--offline plans between versions: give --from A --to B instead of --tenant")
        default: break
        }
    }

    func report() async throws -> PlanReport {
        try await options.withMigrator(offline: offline) { migrator in
            let document = if let tenant {
                try await migrator.planDocument(tenant: tenant, to: to)
            } else {
                try migrator.planDocument(from: from!, to: to!, schema: schema)
            }
            if !offline { try await MappingExpressionCheck.run(on: migrator, from: document.source, to: document.destination) }
            return PlanReport(document: document)
        }
    }
}

/// What `plan` prints: the ``PlanDocument``, in every format: the steps with their SQL, what they
/// archive, lose and give back, and how they run online.
struct PlanReport: CommandReport {
    static var formats: [OutputFormat] { OutputFormat.allCases }

    let document: PlanDocument

    func encode(to encoder: any Encoder) throws { try document.encode(to: encoder) }

    func document(_ format: OutputFormat) -> String { format.render(document) }

    func printText() {
        let subject = document.subject
        guard !document.isEmpty else {
            Console.line("\(subject) is already at \(document.destination); nothing to do")
            return
        }
        let count = document.sections.count
        Console.line("plan for \(subject): \(document.family) \(document.source) → \(document.destination) (\(document.direction?.rawValue ?? "both ways")), "
            + "\(count) step\(count == 1 ? "" : "s")")
        for (index, step) in document.sections.enumerated() {
            Console.line("")
            Console.line("-- step \(index + 1) of \(count): \(step.title)")
            if let online = step.online, document.onlineRefusal == nil { Console.line("-- online: \(online)") }
            for statement in step.statements {
                Console.line(statement.hasSuffix(";") ? statement : statement + ";")
            }
        }
        printLosses(LossListing(archived: document.archived, lost: document.lost, dataDependent: document.dataDependentLosses))
        printGivenBack(document.givenBack ?? [])
        if let kept = document.keptConstraintNames {
            Console.line("")
            Console.line("KEPT UNDER THEIR NAMES ON CITUS (it cannot rename a distributed table's foreign key or check; "
                + "verify compares definitions, names aside):")
            kept.forEach { Console.line("  - " + $0) }
        }
        if let unsupported = document.unsupportedByServer {
            Console.line("")
            Console.line(TextStyle.output.red("REFUSED ON CITUS (SQLSTATE 0A000), online or not:"))
            unsupported.forEach { Console.line("  - " + $0) }
        } else {
            printOnline(document.sections.compactMap(\.online), refusal: document.onlineRefusal, layout: document.onlineLayout)
        }
        Console.line("")
        Console.line("nothing was run")
    }

    /// What the tenant's archive gives back on the way (``ArchiveGivenBack``), per pair, entity and attribute.
    private func printGivenBack(_ givenBack: [ArchiveGivenBack]) {
        guard !givenBack.isEmpty else { return }
        Console.line("")
        Console.line(TextStyle.output.green("GIVEN BACK: " + PlanDocument.givenBackSummary(givenBack)))
        PlanDocument.givenBackLines(givenBack).forEach { Console.line("  - " + $0) }
    }

    /// How the plan runs with --online: the step that decides it.
    private func printOnline(_ modes: [OnlineStepMode], refusal: String?, layout: PlanDocument.OnlineLayout?) {
        guard let worst = modes.map(\.kind).max() else { return }
        Console.line("")
        if let refusal {
            Console.line("online (--online): refused: \(refusal)")
            return
        }
        let built = layout == .tenantSchema ? "built beside the live tables, in the tenant's schema," : "built in a shadow schema"
        let meaning = switch worst {
        case .catalogOnly: "one short transaction; its locks wait at most lock_timeout"
        case .shadow: "\(built) while the app reads and writes, changes caught up, then swapped in; writes wait about a second at most"
        case .writesWait: "\(built) while the app reads; writes wait from the first writes-wait step to the swap"
        }
        Console.line("online (--online): \(worst.rawValue): \(meaning)")
    }

    private func printLosses(_ losses: LossListing) {
        let style = TextStyle.output
        if !losses.archived.isEmpty {
            Console.line("")
            Console.line(style.yellow(LossListing.archivedHeading))
            losses.archived.forEach { Console.line("  - " + losses.text($0)) }
        }
        if !losses.lost.isEmpty {
            Console.line("")
            Console.line(style.red(LossListing.lostHeading))
            losses.lost.forEach { Console.line("  - " + losses.text($0)) }
        }
        if !losses.archived.isEmpty {
            Console.line("")
            Console.line(LossListing.noArchiveNote)
        }
    }
}
