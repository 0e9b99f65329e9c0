import CCrypto

/// SHA-256 through OpenSSL's one-shot `SHA256()`, as lowercase hex.
enum SHA256Digest {
    /// The hex SHA-256 of the UTF-8 bytes of `text`.
    static func hex(_ text: String) -> String {
        var bytes = Array(text.utf8)
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        bytes.withUnsafeMutableBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                _ = SHA256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return digest.hexString
    }
}
