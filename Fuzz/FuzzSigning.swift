// libFuzzer target: the DER and JWS readers (private keys, certificates, ECDSA signatures, PEM,
// compact JWS and bearer tokens). Whatever they accept must write back to the same bytes or
// read back to the same value; nothing may crash. Built by Scripts/fuzz.sh.
import Foundation

private let identity = SigningIdentity(randomBytes: [1, 2, 3], environment: .sandbox)
private let teamKey = P256.PrivateKey(deriving: [4], label: "fuzz")
private let key = Authentication.Key(publicKey: teamKey.publicKey, keyID: "KEY", issuer: "ISS")

public func fuzzSigning(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  if let key = try? P256.PrivateKey(derRepresentation: bytes) {
    guard (try? P256.PrivateKey(derRepresentation: key.pkcs8DERRepresentation)) == key else {
      fatalError("an accepted private key does not read back from its PKCS #8")
    }
  }
  if let certificate = try? X509Certificate(der: bytes) {
    guard certificate.der == bytes, (try? X509Certificate(der: certificate.der)) == certificate else {
      fatalError("an accepted certificate reads back differently")
    }
    _ = certificate.isSigned(by: certificate.publicKey)
  }
  if let signature = P256.Signature(derRepresentation: bytes) {
    guard P256.Signature(derRepresentation: signature.derRepresentation) == signature else {
      fatalError("an accepted ECDSA-Sig-Value does not read back")
    }
    _ = teamKey.publicKey.isValidSignature(signature, for: bytes)
  }
  if let text = String(bytes: bytes, encoding: .utf8) {
    _ = try? P256.PrivateKey(pemOrBase64: text)
    _ = JWS.payload(of: text)
    if JWS.verify(text, signer: identity) != nil { fatalError("a JWS storesim did not sign verified") }
    _ = Authentication.Gate(key: key).check(
      "Bearer " + text, bundleID: "com.example.app", now: Date(timeIntervalSince1970: 0))
  }
  return 0
}
