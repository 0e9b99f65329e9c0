import Foundation
import Testing

/// Expected output kept as a readable file beside the tests, compared with what the code produces
/// now. To write the files again after an intended change, run the tests with
/// `TM_RECORD_GOLDEN=1` and review the diff.
public enum GoldenFile {
    /// Expects `text` to equal the file at `url`; writes it instead when `TM_RECORD_GOLDEN=1`.
    public static func compare(_ text: String, with url: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        if ProcessInfo.processInfo.environment["TM_RECORD_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let golden = try? String(contentsOf: url, encoding: .utf8)
        #expect(golden != nil, "missing golden file \(url.lastPathComponent); run with TM_RECORD_GOLDEN=1", sourceLocation: sourceLocation)
        #expect(golden == text, "output differs from \(url.lastPathComponent); if intended, run with TM_RECORD_GOLDEN=1 and review",
                sourceLocation: sourceLocation)
    }
}
