// swift-tools-version:6.0
// The manifest of an app that ships its own runner (docs/CustomRunner.md): the shape of yours. Not
// built here (the runner itself is the root package's `recipes-runner`, built by CI).
import PackageDescription

let package = Package(
    name: "RecipesApp",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/<owner>/TenantMigrator.git", from: "1.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "recipes-runner",
            dependencies: [
                .product(name: "TenantMigrateCLI", package: "TenantMigrator"),
                .product(name: "MigrationEngine", package: "TenantMigrator"),
                .product(name: "RecipesPolicies", package: "TenantMigrator"),   // or your own policies target
            ]
        ),
    ]
)
