import Foundation
import StoreSim
import StoreSimCrypto
import StoreSimServer
import StoreSimSession

/// A P-256 private key the user named: PEM (`PRIVATE KEY`, `EC PRIVATE KEY`), DER or Base64.
enum KeyFile {
  static let maximumSize = 64 * 1024

  /// The name a key given as text stands under on the command line (`CLIEnvironment.givenKeys`).
  static func given(_ option: String) -> String { "(\(option) in the request)" }

  static func read(_ path: String, option: String, _ inv: Invocation) throws -> P256.PrivateKey {
    if let text = inv.environment.givenKeys[path] {
      do { return try P256.PrivateKey(pemOrBase64: text) } catch {
        throw CLIError.data("\(option) \(path): not a P-256 private key (\(error.message))")
      }
    }
    let data = try ConfigurationFile.bytes(try inv.environment.resolve(path), shownAs: path)
    guard data.count <= maximumSize else { throw CLIError.data("\(option) \(path): not a P-256 private key") }
    do {
      if let text = String(data: data, encoding: .utf8) { return try P256.PrivateKey(pemOrBase64: text) }
      return try P256.PrivateKey(derRepresentation: Array(data))
    } catch {
      if let key = try? P256.PrivateKey(derRepresentation: Array(data)) { return key }
      throw CLIError.data("\(option) \(path): not a P-256 private key (\(error.message))")
    }
  }
}

/// `storesim certificate`: the root a server trusts in place of Apple's.
struct CertificateCommand: CommandLineCommand {
  static let configuration = CommandConfiguration(
    name: "certificate", group: "Inspection",
    abstract: "Print the session's root certificate (PEM, or DER with --der)",
    discussion: """
      Sandbox and Production sessions sign with a chain of three certificates (root,
      intermediate with Apple's WWDR OID, leaf with the Receipt Signing OID); give this root to
      SignedDataVerifier as its only root certificate, online checks off. Xcode and LocalTesting
      sessions sign as Xcode does, with one self-signed certificate: this prints it. The key
      behind it is test material (see docs/signing.md).
      """,
    example: "storesim certificate > storesim-root.pem")

  @Flag(help: "print DER bytes instead of PEM")
  var der: Bool
  @Arguments(0...0, "")
  var arguments: [String]

  func run(_ inv: Invocation) throws -> ExitCode {
    try inspecting(inv, needsNotifications: false) { store, _ in
      let root = store.state.signer.rootCertificate
      if der {
        inv.environment.writeOutBytes(root.der)
      } else if inv.json {
        inv.printJSON(
          .object([
            "environment": .string(store.state.environment.rawValue),
            "certificate": .string(Data(root.der).base64EncodedString()),
            "chainLength": .int(Int64(store.state.signer.certificates.count)),
          ]))
      } else {
        inv.out(root.pem)
      }
      return .success
    }
  }
}
