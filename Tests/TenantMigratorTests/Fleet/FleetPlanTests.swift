import Testing
@testable import TenantMigrator

/// What a fleet run does with each tenant is decided from where the tenants stand, with no server.
@Suite("FleetPlan")
struct FleetPlanTests {
    static func record(_ name: String, at version: String, pinned: Bool = false) throws -> TenantRecord {
        TenantRecord(name: try TenantName(name), schema: "tenant_\(name)", family: "Recipes", version: version,
                     pinnedVersion: pinned ? version : nil, pinnedReason: pinned ? "rolled back" : nil)
    }

    static func fleet() throws -> [TenantRecord] {
        [try record("delta", at: "v1"), try record("alpha", at: "v3"), try record("echo", at: "v2", pinned: true),
         try record("bravo", at: "v2"), try record("charlie", at: "v3", pinned: true), try record("foxtrot", at: "v1")]
    }

    @Test func everyTenantIsCurrentPinnedOrPendingByName() throws {
        let plan = FleetPlan(records: try Self.fleet(), target: "v3")
        // A tenant pinned at the target is current: there is nothing to leave alone.
        #expect(plan.current == ["alpha", "charlie"])
        #expect(plan.currentCount == 2)
        #expect(plan.pinned.map(\.name.rawValue) == ["echo"])
        #expect(plan.pending.map(\.name.rawValue) == ["bravo", "delta", "foxtrot"])
        #expect(plan.unknown.isEmpty)
        #expect(plan.unlistedCurrent == 0)
    }

    @Test func theSelectionFiltersAndItsLimitCutsOnlyThePending() throws {
        let selection = TenantSelection(names: ["alpha", "bravo", "delta", "echo", "golf"], limit: 1)
        let plan = FleetPlan(records: try Self.fleet(), target: "v3", selection: selection)
        #expect(plan.current == ["alpha"])
        #expect(plan.pinned.map(\.name.rawValue) == ["echo"])
        #expect(plan.pending.map(\.name.rawValue) == ["bravo"])
        #expect(plan.unknown == ["golf"])

        let matching = FleetPlan(records: try Self.fleet(), target: "v3", selection: TenantSelection(pattern: "*o*"))
        #expect(matching.pending.map(\.name.rawValue) == ["bravo", "foxtrot"])
        #expect(matching.pinned.map(\.name.rawValue) == ["echo"])
        #expect(matching.current.isEmpty)
    }

    @Test func aCountedPlanNamesNoCurrentTenantAndFindsNoUnknownOnes() throws {
        let elsewhere = try Self.fleet().filter { $0.version != "v3" }.sorted { $0.name.rawValue < $1.name.rawValue }
        let counted = FleetPlan(target: "v3", elsewhere: elsewhere, currentCount: 2, currentNames: nil, selection: .all, listingCurrent: false)
        #expect(counted.current.isEmpty)
        #expect(counted.unlistedCurrent == 2)
        #expect(counted.pending.count == 3)
        // Names read only to tell the unknown ones: not listed, still counted.
        let named = TenantSelection(names: ["alpha", "zulu"])
        let read = FleetPlan(target: "v3", elsewhere: [], currentCount: 1, currentNames: ["alpha"], selection: named, listingCurrent: false)
        #expect(read.current.isEmpty)
        #expect(read.unlistedCurrent == 1)
        #expect(read.unknown == ["zulu"])
    }

    @Test func settledEntriesReportWhatTheRunDoesNotMove() throws {
        let plan = FleetPlan(records: try Self.fleet(), target: "v3", selection: TenantSelection(names: ["alpha", "echo", "bravo", "golf"]))
        let entries = plan.settledEntries(family: "Recipes")
        #expect(entries.map(\.tenant) == ["alpha", "echo", "golf"])
        #expect(entries.map(\.outcome) == [.skipped, .pinned, .failed])
        #expect(entries[1].fromVersion == "v2")
        #expect(entries[2].error == "no tenant named golf in family Recipes")
    }
}
