import EntityModel

extension ModelFamily {
    /// The version named `name`, or the latest when `name` is nil: the one check every entry point
    /// (facade, runner, fleet, lifecycle) makes before touching the database.
    ///
    /// - Throws: ``TenantMigratorError/unknownVersion(_:family:known:)``.
    public func requireVersion(named name: String?) throws -> ModelVersion {
        guard let name else { return latestVersion }
        guard let version = version(named: name) else {
            throw TenantMigratorError.unknownVersion(name, family: self.name, known: versionNames)
        }
        return version
    }
}
