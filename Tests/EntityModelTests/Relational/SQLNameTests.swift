import EntityModel
import Testing

struct SQLNameTests {
    @Test func shortNamesAreJoinedAsTheyAre() {
        #expect(SQLName.derived(["recipe_ingredient", "recipe_id"], suffix: "fkey") == "recipe_ingredient_recipe_id_fkey")
        #expect(SQLName.derived(["note", "tags"]) == "note_tags")
    }

    @Test func longNamesAreCutWithAHashBeforeTheSuffix() {
        let table = String(repeating: "a", count: 40)
        let column = String(repeating: "b", count: 40)
        let name = SQLName.derived([table, column], suffix: "fkey")
        #expect(name.utf8.count == 63)
        #expect(name.hasPrefix(table + "_bbbbb"))
        #expect(name.hasSuffix("_fkey"))
        #expect(name.wholeMatch(of: /a{40}_b+_[0-9a-f]{8}_fkey/) != nil)
        #expect(SQLName.derived([table, column], suffix: "fkey") == name, "deterministic")
        #expect(SQLName.derived([table, column + "c"], suffix: "fkey") != name, "distinct inputs, distinct names")
    }

    @Test func identifiersAndReservedNames() {
        #expect(SQLName.isIdentifier("recipe_2"))
        #expect(!SQLName.isIdentifier("2recipe"))
        #expect(!SQLName.isIdentifier("_recipe"))
        #expect(!SQLName.isIdentifier("récipe"))
        #expect(SQLName.isReserved("id") && SQLName.isReserved("entity") && SQLName.isReserved("_tm_x"))
        // Only `_tm_` is the tool's: an application's `_prisma_migrations` is a name a model may give a table.
        #expect(!SQLName.isReserved("_x") && SQLName.isSQLName("_prisma_migrations") && !SQLName.isSQLName("2x"))
        #expect(!SQLName.isReserved("identity"))
    }
}
