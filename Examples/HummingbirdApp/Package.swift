// swift-tools-version:6.0
// A Hummingbird 2 server that uses TenantMigrator beside PostgresNIO. Not built in CI (SwiftNIO,
// PostgresNIO and Hummingbird take over 20 minutes to build on two cores): build it by hand with
// `swift build` in this directory.
import Foundation
import PackageDescription

// This example depends on the TenantMigrator checkout two directories up. SwiftPM names a path
// dependency after its directory (`main`, `TenantMigrator`, whatever the clone is called), and
// `.product(name:package:)` must use that name, so the manifest works it out. A real app depends on
// `.package(url: "https://github.com/<owner>/TenantMigrator.git", from: "1.0.0")`, whose name is
// `TenantMigrator`.
let tenantMigratorPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardizedFileURL
let tenantMigrator = tenantMigratorPath.lastPathComponent

let package = Package(
    name: "HummingbirdApp",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: tenantMigratorPath.path),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .executableTarget(
            name: "RecipesApp",
            dependencies: [
                .product(name: "TenantMigrator", package: tenantMigrator),
                .product(name: "TenantMigratorService", package: tenantMigrator),
                .product(name: "LibPQ", package: tenantMigrator),
                .product(name: "RecipesPolicies", package: tenantMigrator),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ]
)
