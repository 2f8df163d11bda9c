import Foundation
import StoreSim
import StoreSimCrypto

/// `import --verify-root CERT`: the root a JWS's `x5c` chain must lead to (P-256 chains: a
/// simulator's, a test key's; Apple's own P-384 roots are not checked by storesim's code).
struct ImportRoot: Sendable {
  let certificate: X509Certificate

  static func read(_ path: String, _ inv: Invocation) throws -> ImportRoot {
    let data = try ConfigurationFile.bytes(try inv.environment.resolve(path), shownAs: path)
    let der = String(data: data, encoding: .utf8).flatMap { PEM.decode($0, labels: ["CERTIFICATE"]) } ?? Array(data)
    guard let certificate = try? X509Certificate(der: der) else {
      throw CLIError.data("--verify-root \(path): not a P-256 X.509 certificate")
    }
    return ImportRoot(certificate: certificate)
  }

  /// Whether the JWS's signature verifies with its leaf, each certificate is signed by the next,
  /// and the last is this root or signed by it.
  func verifies(_ jws: String) -> Bool {
    let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let headerBytes = JWS.decodeBase64URL(parts[0]),
      let header = try? JSONParser.parse(headerBytes), case .array(let list)? = header["x5c"]?.value
    else { return false }
    let x5c = list.compactMap { if case .string(let s) = $0.value { s } else { nil } }
    guard !x5c.isEmpty, x5c.count == list.count else { return false }
    var chain: [X509Certificate] = []
    for text in x5c {
      guard let der = Data(base64Encoded: text), let c = try? X509Certificate(der: Array(der)) else { return false }
      chain.append(c)
    }
    for (child, parent) in zip(chain, chain.dropFirst()) where !child.isSigned(by: parent.publicKey) { return false }
    guard let top = chain.last, top.der == certificate.der || top.isSigned(by: certificate.publicKey) else {
      return false
    }
    guard let raw = JWS.decodeBase64URL(parts[2]), let signature = P256.Signature(rawRepresentation: raw) else {
      return false
    }
    return chain[0].publicKey.isValidSignature(signature, for: "\(parts[0]).\(parts[1])".utf8)
  }
}
