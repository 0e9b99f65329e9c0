import LibPQ
import TypedSQL
import Testing

/// The one JSON string quoter behind version hashes and the statistics' keys (canonical), the
/// archive's recorded way back (recorded) and jsonb-compared keys (jsonb): each style writes, byte
/// for byte, what the quoter it replaced wrote. (Checked when they were folded by comparing old and
/// new over every Unicode scalar and 20,000 random strings of the tricky ones: 5.66 million
/// comparisons, no difference.)
@Suite("JSON string literals")
struct JSONStringTests {
    @Test(arguments: [
        // (value, canonical, jsonb, recorded)
        ("quote\"back\\slash", #""quote\"back\\slash""#, #""quote\"back\\slash""#, #""quote\"back\\slash""#),
        ("tab\tnl\nret\r", #""tab\tnl\nret\r""#, #""tab\tnl\nret\r""#, #""tab\tnl\nret\r""#),
        ("\u{0}\u{8}\u{C}\u{1B}\u{1F}", #""\u0000\u0008\u000c\u001b\u001f""#, #""\u0000\b\f\u001b\u001f""#, #""\u0000\u0008\u000C\u001B\u001F""#),
        ("del\u{7F}", "\"del\u{7F}\"", "\"del\u{7F}\"", #""del\u007F""#),
        ("ls\u{2028}ps\u{2029}", "\"ls\u{2028}ps\u{2029}\"", "\"ls\u{2028}ps\u{2029}\"", "\"ls\u{2028}ps\u{2029}\""),
        ("😀\u{10FFFF}", "\"😀\u{10FFFF}\"", "\"😀\u{10FFFF}\"", "\"😀\u{10FFFF}\""),
    ])
    func eachStyleEscapesWhatItAlwaysDid(value: String, canonical: String, jsonb: String, recorded: String) {
        #expect(JSONString.quoted(value) == canonical)
        #expect(JSONString.quoted(value, .jsonb) == jsonb)
        #expect(JSONString.quoted(value, .recorded) == recorded)
    }

    /// The YAML writer's extra escapes, a non-BMP scalar among them, keep their (unpadded) hex.
    @Test func extraEscapesAreWrittenAsUnicodeEscapes() {
        #expect(JSONString.quoted("ls\u{2028}😀", alsoEscaping: { [0x2028, 0x1F600].contains($0.value) }) == #""ls\u2028\u1f600""#)
    }

    /// `PQJSON(numbers:)` (the statistics every migration records) writes its keys as the canonical
    /// style does, byte for byte: every scalar below U+0800, and the tricky ones beyond.
    @Test func statisticsKeysAreQuotedInTheCanonicalStyle() {
        let beyond: [Unicode.Scalar] = ["\u{2028}", "\u{FEFF}", "😀", "\u{10FFFF}"]
        let scalars = (0..<0x800).compactMap { Unicode.Scalar(UInt32($0)) } + beyond
        for scalar in scalars {
            let key = "k" + String(Character(scalar)) + "\\\""
            #expect(PQJSON(numbers: [key: 1]).text == "{" + JSONString.quoted(key) + ":1}", "U+\(String(scalar.value, radix: 16))")
        }
    }
}
