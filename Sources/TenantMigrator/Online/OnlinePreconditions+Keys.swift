import EntityModel
import MigrationEngine

extension OnlinePreconditions {
    /// Why a tenant whose tables are keyed by a type the change capture cannot log does not migrate online
    /// (``MigrationPlan/onlineKeyRefusal``).
    var keyRefusal: String? { plan.onlineKeyRefusal }
}
