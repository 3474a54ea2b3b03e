import Crypto
import Foundation

/// Bearer tokens: 256 random bits, shown to the device once. The server stores only their SHA-256,
/// and looks devices up by that hash, so a stolen database holds no usable token and no secret
/// is ever compared byte by byte.
enum DeviceToken {
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func hash(_ token: String) -> Data {
        Data(SHA256.hash(data: Data(token.utf8)))
    }
}
