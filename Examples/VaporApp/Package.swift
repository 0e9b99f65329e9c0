// swift-tools-version:6.0
// A Vapor 4 server that migrates its tenants at boot with TenantMigratorService. Not built in CI
// (Vapor and SwiftNIO take too long to build on two cores): build it by hand with `swift build`
// in this directory.
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its directory, so the manifest works that name out (see
// Examples/HummingbirdApp/Package.swift). A real app writes
// `.package(url: "https://github.com/<owner>/TenantMigrator.git", from: "1.0.0")` and
// `package: "TenantMigrator"`.
let tenantMigratorPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardizedFileURL
let tenantMigrator = tenantMigratorPath.lastPathComponent

let package = Package(
    name: "VaporApp",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: tenantMigratorPath.path),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
    ],
    targets: [
        .executableTarget(
            name: "RecipesVaporApp",
            dependencies: [
                .product(name: "TenantMigrator", package: tenantMigrator),
                .product(name: "TenantMigratorService", package: tenantMigrator),
                .product(name: "RecipesPolicies", package: tenantMigrator),
                .product(name: "Vapor", package: "vapor"),
            ]
        ),
    ]
)
