import ArgumentParser

/// `--tenant NAME`: the option of the commands that look at every tenant, or at one (`archive list`,
/// `archive prune`, `online cleanup`).
struct TenantFilterOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Only this tenant.", valueName: "name")) var tenant: String?
}
