import EntityModel

/// Another session's online run holds the tenant: its lease (``OnlineLease``) names a live
/// session of the migrator. Only a migrator can write a lease, so this is never an app's doing.
///
/// An online run lasts as long as its tenant is big, so a runner that meets one does not give up
/// after its lock timeouts (it would report a failure of a tenant the other run migrates
/// correctly): it waits for the run to end, holding nothing, and then finds the tenant where that
/// run left it (``TenantRun/waitForOnlineRun(_:)``).
struct TenantHeldOnline: Error, CustomStringConvertible {
    let tenant: TenantName

    var description: String { "an online migration of tenant \(tenant) runs in another session" }
}
