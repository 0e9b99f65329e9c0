// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "TenantMigrator",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "LibPQ", targets: ["LibPQ"]),
        .library(name: "ChildProcesses", targets: ["ChildProcesses"]),
        .library(name: "EmbeddedPostgres", targets: ["EmbeddedPostgres"]),
        .library(name: "EntityModel", targets: ["EntityModel"]),
        .library(name: "MigrationEngine", targets: ["MigrationEngine"]),
        .library(name: "TenantMigrator", targets: ["TenantMigrator"]),
        .library(name: "TenantMigratorService", targets: ["TenantMigratorService"]),
        .library(name: "TenantMigrateCLI", targets: ["TenantMigrateCLI"]),
        // The example family's Swift migration policies, for the examples and for trying the library.
        .library(name: "RecipesPolicies", targets: ["RecipesPolicies"]),
        .executable(name: "tenant-migrate", targets: ["tenant-migrate"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // MARK: The wire
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        // Statements as typed values: SQL text, names, string constants and parameters, rendered for a
        // tenant's schema without a connection. LibPQ runs them; the models and the engine build them.
        .target(name: "TypedSQL"),
        .target(
            name: "LibPQ",
            dependencies: ["CLibPQ", "TypedSQL", .product(name: "Logging", package: "swift-log")]
        ),
        // Programs run as child processes (posix_spawn, wait4), for the server's programs, Graphviz,
        // the benchmarks and the tests.
        .target(name: "ChildProcesses"),
        .target(
            name: "EmbeddedPostgres",
            dependencies: ["LibPQ", "ChildProcesses", .product(name: "Logging", package: "swift-log")]
        ),

        // MARK: Models
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]
        ),
        .target(
            name: "EntityModel",
            dependencies: ["CCrypto", "ChildProcesses", "TypedSQL", "Yams"]
        ),

        // Core Data model bundles (.xcdatamodeld) as model families, read with FoundationXML; a
        // module of its own so that apps linking EntityModel do not need libxml2.
        .target(
            name: "CoreDataImport",
            dependencies: ["EntityModel"]
        ),

        // MARK: Migrations
        .target(
            name: "MigrationEngine",
            dependencies: ["LibPQ", "EntityModel", "Yams", .product(name: "Logging", package: "swift-log")]
        ),

        // The Recipes family's Swift migration policies live with its models.
        .target(
            name: "RecipesPolicies",
            dependencies: ["MigrationEngine"],
            path: "Migrations/Recipes/Policies"
        ),

        // MARK: Tenants: the catalog, the runner, the fleet and the facade over them
        .target(
            name: "TenantMigrator",
            dependencies: [
                "LibPQ", "EntityModel", "MigrationEngine", .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),

        // MARK: Boot as a swift-service-lifecycle Service (the core TenantMigrator module stays free of it)
        .target(
            name: "TenantMigratorService",
            dependencies: [
                "TenantMigrator", "LibPQ",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Command line
        .target(
            name: "TenantMigrateCLI",
            dependencies: [
                "TenantMigrator", "MigrationEngine", "EntityModel", "CoreDataImport", "LibPQ", "EmbeddedPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "tenant-migrate",
            dependencies: [
                "TenantMigrateCLI", "RecipesPolicies", "MigrationEngine", "TenantMigrator", "LibPQ",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/TenantMigrate"
        ),

        // MARK: Benchmarks (run with -c release; they print timings, they are not tests)
        .executableTarget(
            name: "tenant-migrate-bench",
            dependencies: [
                "LibPQ", "ChildProcesses", "EmbeddedPostgres", "EntityModel", "MigrationEngine", "RecipesPolicies", "TenantMigrator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/TenantMigrateBench"
        ),

        // MARK: Examples: every Swift snippet of README.md and docs/*.md is an excerpt of these, so CI
        // compiles the docs (DocumentationTests checks the excerpts). Examples/HummingbirdApp and
        // Examples/VaporApp are packages of their own, built by hand.
        .target(
            name: "ExamplePolicies",
            dependencies: ["MigrationEngine", "EntityModel", "LibPQ"],
            path: "Examples/Policies"
        ),
        .executableTarget(
            name: "ServerAppExample",
            dependencies: [
                "TenantMigrator", "TenantMigratorService", "MigrationEngine", "EntityModel", "LibPQ", "RecipesPolicies",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "Examples/ServerApp"
        ),
        .executableTarget(
            name: "recipes-runner",
            dependencies: [
                "TenantMigrateCLI", "MigrationEngine", "RecipesPolicies", "TenantMigrator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/CustomRunner/Runner"
        ),
        .executableTarget(
            name: "recipes-app",
            dependencies: [
                "TenantMigrateCLI", "RecipesPolicies",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/CustomRunner/HostApp"
        ),

        // MARK: Test support
        .target(
            name: "PostgresTestSupport",
            dependencies: ["LibPQ", "EmbeddedPostgres", "ChildProcesses", .product(name: "Logging", package: "swift-log")],
            path: "Tests/PostgresTestSupport"
        ),
        // The Recipes family through the library and the command line, for the suites above LibPQ.
        .target(
            name: "TenantMigratorTestSupport",
            dependencies: [
                "PostgresTestSupport", "TenantMigrator", "TenantMigrateCLI", "MigrationEngine", "EntityModel", "LibPQ", "RecipesPolicies",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TenantMigratorTestSupport"
        ),
        .testTarget(name: "TypedSQLTests", dependencies: ["TypedSQL", "LibPQ", "PostgresTestSupport"]),
        .testTarget(name: "LibPQTests", dependencies: ["LibPQ", "EmbeddedPostgres", "PostgresTestSupport"]),
        .testTarget(name: "ChildProcessesTests", dependencies: ["ChildProcesses"]),
        .testTarget(name: "EmbeddedPostgresTests", dependencies: ["EmbeddedPostgres", "PostgresTestSupport"]),
        .testTarget(name: "EntityModelTests", dependencies: ["EntityModel", "PostgresTestSupport"], exclude: ["Fixtures"], resources: [.copy("Golden")]),
        .testTarget(name: "CoreDataImportTests", dependencies: ["CoreDataImport", "EntityModel", "MigrationEngine", "PostgresTestSupport"], exclude: ["Fixtures"]),
        // The engine's behaviour in a tenant is driven through the facade (TenantMigrator) and, for
        // `check --round-trip`, the command line.
        .testTarget(
            name: "MigrationEngineTests",
            dependencies: [
                "MigrationEngine", "EntityModel", "LibPQ", "RecipesPolicies", "PostgresTestSupport", "TenantMigrator", "TenantMigratorTestSupport",
                "ChildProcesses", .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "TenantMigratorTests",
            dependencies: [
                "TenantMigrator", "MigrationEngine", "EntityModel", "LibPQ", "RecipesPolicies", "PostgresTestSupport",
                "TenantMigratorTestSupport",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "TenantMigratorServiceTests",
            dependencies: [
                "TenantMigratorService", "TenantMigrator", "LibPQ", "RecipesPolicies", "PostgresTestSupport", "TenantMigratorTestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TenantMigrateCLITests",
            dependencies: [
                "TenantMigrateCLI", "TenantMigrator", "MigrationEngine", "RecipesPolicies", "EmbeddedPostgres", "PostgresTestSupport", "TenantMigratorTestSupport",
                "ChildProcesses",
            ]
        ),

        // Whole-product suites: fleets and security through the library and the command line, and
        // Citus (skipped unless TEST_CITUS_URL names a cluster).
        .testTarget(
            name: "FleetTests",
            dependencies: [
                "TenantMigrator", "TenantMigrateCLI", "MigrationEngine", "RecipesPolicies", "LibPQ", "PostgresTestSupport", "TenantMigratorTestSupport",
            ]
        ),
        .testTarget(
            name: "SecurityTests",
            dependencies: [
                "TenantMigrateCLI", "TenantMigrator", "MigrationEngine", "RecipesPolicies", "LibPQ", "PostgresTestSupport", "TenantMigratorTestSupport",
            ]
        ),
        .testTarget(
            name: "CitusTests", dependencies: ["TenantMigrator", "RecipesPolicies", "LibPQ", "PostgresTestSupport", "TenantMigratorTestSupport", "EntityModel", "MigrationEngine", "TypedSQL"]
        ),

        // The docs' Swift snippets are excerpts of Examples/ (no product dependencies: it reads files).
        .testTarget(name: "DocumentationTests"),
    ]
)
