import EntityModel
import Testing

struct SnakeCaseTests {
    @Test(arguments: [
        ("RecipeIngredient", "recipe_ingredient"),
        ("unitOfMeasure", "unit_of_measure"),
        ("imageURL", "image_url"),
        ("URLString", "url_string"),
        ("imageURLString", "image_url_string"),
        ("v2Name", "v2_name"),
        ("address2", "address2"),
        ("recipe_name", "recipe_name"),
        ("Recipe_Item", "recipe_item"),
        ("ID", "id"),
        ("name", "name"),
    ])
    func snakeCase(name: String, expected: String) {
        #expect(name.snakeCased == expected)
    }
}
