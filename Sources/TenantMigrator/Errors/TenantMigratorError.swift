import EntityModel
import LibPQ

/// A tenant operation was refused or failed. Each case names the tenant and says what to do.
///
/// This is the error type an app switches on: the facade (``TenantMigrator``) turns what its lower
/// layers throw into it (``databaseUnavailable(_:)``, ``database(_:sqlState:)``,
/// ``cannotPlan(_:)``), so no lower module needs importing. A migration that ran and failed or was
/// refused throws ``TenantMigrationError`` instead, with the tenant, the versions and the step.
///
/// ```swift
/// do {
///     try await migrator.createTenant(name)
/// } catch TenantMigratorError.tenantExists {
///     // 409
/// } catch TenantMigratorError.databaseUnavailable {
///     // 503, retry later
/// }
/// ```
public enum TenantMigratorError: Error, Sendable, CustomStringConvertible {
    case invalidTenantName(String, reason: String)
    case tenantExists(TenantName)
    case schemaExists(String, tenant: TenantName)
    case unknownTenant(TenantName)
    case unknownVersion(String, family: String, known: [String])
    case familyMismatch(tenant: TenantName, recorded: String, configured: String)
    case catalogTooNew(catalog: String, found: Int, supported: Int)
    case adoptionFailed(schema: String, closest: String?, differences: [String])
    case schemaMissing(String)
    /// `tenant adopt` named a schema that another tenant is registered with.
    case schemaBelongsToTenant(String, tenant: TenantName)
    case dropNotConfirmed(TenantName)
    /// The model file of `version` is not the one `tenants` were migrated with (its hash differs
    /// from the recorded one).
    case modelChanged(version: String, file: String, tenants: [TenantName])
    /// The catalog's name is not a valid schema name for a catalog.
    case invalidCatalogName(String, reason: String)
    /// A schema of the catalog's name exists but is not a tenant catalog.
    case notACatalog(String)
    /// The catalog's schema is not the migrator's alone: another role owns it or something in it,
    /// may create in it, or put a trigger or rule on it. Nothing was read from it or written to it.
    /// SQLSTATE 42501.
    case untrustedCatalog(String, problems: [String])
    /// The database could not be reached, or the connection was lost: retrying later may succeed.
    case databaseUnavailable(String)
    /// The database refused a statement (outside a migration, which throws ``TenantMigrationError``),
    /// with its SQLSTATE when it sent one.
    case database(String, sqlState: String?)
    /// No path between two versions: for some step there is neither a mapping model nor an
    /// inferable difference. Nothing was touched.
    case cannotPlan(String)

    /// What happened, without what to do about it: the part of ``description`` that holds for any
    /// caller, for a front end (the command line) to add advice in its own words.
    public var summary: String {
        switch self {
        case let .invalidTenantName(name, reason):
            return "invalid tenant name \(name.debugDescription): \(reason). Tenant names are 1-48 characters of a-z, 0-9 and _, starting with a letter."
        case let .tenantExists(name):
            return "tenant \(name) already exists"
        case let .schemaExists(schema, _):
            return "schema \(schema) already exists but is not registered as a tenant"
        case let .unknownTenant(name):
            return "no tenant named \(name)"
        case let .unknownVersion(version, family, known):
            return "family \(family) has no version \(version.debugDescription) (it has \(known.joined(separator: ", ")))"
        case let .familyMismatch(tenant, recorded, configured):
            return "tenant \(tenant) belongs to family \(recorded), not \(configured)"
        case let .catalogTooNew(catalog, found, supported):
            return "the tenant catalog \(catalog) has version \(found), but this version of TenantMigrator supports up to \(supported)"
        case let .adoptionFailed(schema, closest, differences):
            var text = "schema \(schema) matches no version of the family"
            if let closest {
                text += "; the closest is \(closest), with \(differences.count) difference\(differences.count == 1 ? "" : "s"):"
                text += differences.prefix(20).map { "\n  - \($0)" }.joined()
                if differences.count > 20 { text += "\n  … and \(differences.count - 20) more" }
            }
            return text
        case let .schemaMissing(schema):
            return "schema \(schema) does not exist"
        case let .schemaBelongsToTenant(schema, tenant):
            return "schema \(schema) already belongs to tenant \(tenant); a schema can be registered for one tenant only"
        case let .dropNotConfirmed(name):
            return "dropping tenant \(name) deletes its schema and all its data"
        case let .invalidCatalogName(name, reason):
            return "invalid catalog name \(name.debugDescription): \(reason)"
        case let .notACatalog(schema):
            return "schema \(schema) exists but is not a tenant catalog (it has no catalog_info table); nothing was "
                + "created in it. Name an existing catalog, or a new name that is not an existing schema"
        case let .untrustedCatalog(schema, problems):
            return "the tenant catalog \(schema) is not the migrator's alone (42501): " + problems.joined(separator: "; ")
                + ". Anything another role attaches to the catalog would run with the migrator's rights, so nothing was "
                + "read from it or written to it. The catalog's schema and everything in it must be owned by the migrator "
                + "role (or a superuser), with no CREATE right for other roles and no triggers or rules; have a superuser "
                + "inspect and remove what is not the migrator's, or name another catalog"
        case let .databaseUnavailable(message), let .database(message, _), let .cannotPlan(message):
            return message
        case let .modelChanged(version, file, tenants):
            let names = tenants.prefix(10).map(\.rawValue).joined(separator: ", ") + (tenants.count > 10 ? " and \(tenants.count - 10) more" : "")
            return "\(file) (version \(version)) changed since tenant\(tenants.count == 1 ? "" : "s") \(names) reached it: "
                + "its model hash differs from the one recorded, so a plan from \(version) would assume a shape \(tenants.count == 1 ? "that tenant does" : "those tenants do") "
                + "not have. Nothing was changed"
        }
    }

    /// The ``summary`` with what to do, in terms of the Swift API.
    public var description: String {
        switch self {
        case let .schemaExists(schema, tenant):
            return summary + "; register it with `adoptTenant(\"\(tenant)\", schema: \"\(schema)\")`, or drop it"
        case .unknownTenant, .schemaBelongsToTenant:
            return summary + " (see `TenantMigrator.tenants()`)"
        case .catalogTooNew:
            return summary + "; upgrade TenantMigrator"
        case .dropNotConfirmed:
            return summary + "; confirm with `dropTenant(_:confirmed: true)`"
        case .modelChanged:
            return summary + ". Restore the released file, or accept the change if it is cosmetic (`acceptModelChange`)"
        default:
            return summary
        }
    }
}

extension ModelFamily {
    /// The file that defines `version`, as diagnostics name it (`Recipes/v1.yaml`).
    func versionFile(_ version: String) -> String {
        (directory.map { $0.lastPathComponent + "/" } ?? "") + version + ".yaml"
    }
}
