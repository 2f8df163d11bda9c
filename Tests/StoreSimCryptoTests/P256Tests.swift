import Foundation
import Testing

@testable import StoreSimCrypto

/// P-256 ECDSA against published known answers: NIST CAVP `SigGen.txt` ([P-256,SHA-256], the
/// message digests precomputed) and RFC 6979 appendix A.2.5 (deterministic nonces).
@Suite struct P256Tests {
  static func bytes(_ hex: String) -> [UInt8] {
    var out = [UInt8]()
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      out.append(UInt8(hex[index..<next], radix: 16)!)
      index = next
    }
    return out
  }

  static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

  /// d, Qx, Qy, k, SHA-256(Msg), R, S.
  static let cavp: [(String, String, String, String, String, String, String)] = [
    (
      "519b423d715f8b581f4fa8ee59f4771a5b44c8130b4e3eacca54a56dda72b464",
      "1ccbe91c075fc7f4f033bfa248db8fccd3565de94bbfb12f3c59ff46c271bf83",
      "ce4014c68811f9a21a1fdb2c0e6113e06db7ca93b7404e78dc7ccd5ca89a4ca9",
      "94a1bbb14b906a61a280f245f9e93c7f3b4a6247824f5d33b9670787642a68de",
      "44acf6b7e36c1342c2c5897204fe09504e1e2efb1a900377dbc4e7a6a133ec56",
      "f3ac8061b514795b8843e3d6629527ed2afd6b1f6a555a7acabb5e6f79c8c2ac",
      "8bf77819ca05a6b2786c76262bf7371cef97b218e96f175a3ccdda2acc058903"
    ),
    (
      "0f56db78ca460b055c500064824bed999a25aaf48ebb519ac201537b85479813",
      "e266ddfdc12668db30d4ca3e8f7749432c416044f2d2b8c10bf3d4012aeffa8a",
      "bfa86404a2e9ffe67d47c587ef7a97a7f456b863b4d02cfc6928973ab5b1cb39",
      "6d3e71882c3b83b156bb14e0ab184aa9fb728068d3ae9fac421187ae0b2f34c6",
      "9b2db89cb0e8fa3cc7608b4d6cc1dec0114e0b9ff4080bea12b134f489ab2bbc",
      "976d3a4e9d23326dc0baa9fa560b7c4e53f42864f508483a6473b6a11079b2db",
      "1b766e9ceb71ba6c01dcd46e0af462cd4cfa652ae5017d4555b8eeefe36e1932"
    ),
    (
      "e283871239837e13b95f789e6e1af63bf61c918c992e62bca040d64cad1fc2ef",
      "74ccd8a62fba0e667c50929a53f78c21b8ff0c3c737b0b40b1750b2302b0bde8",
      "29074e21f3a0ef88b9efdf10d06aa4c295cc1671f758ca0e4cd108803d0f2614",
      "ad5e887eb2b380b8d8280ad6e5ff8a60f4d26243e0124c2f31a297b5d0835de2",
      "b804cf88af0c2eff8bbbfb3660ebb3294138e9d3ebd458884e19818061dacff0",
      "35fb60f5ca0f3ca08542fb3cc641c8263a2cab7a90ee6a5e1583fac2bb6f6bd1",
      "ee59d81bc9db1055cc0ed97b159d8784af04e98511d0a9a407b99bb292572e96"
    ),
    (
      "a3d2d3b7596f6592ce98b4bfe10d41837f10027a90d7bb75349490018cf72d07",
      "322f80371bf6e044bc49391d97c1714ab87f990b949bc178cb7c43b7c22d89e1",
      "3c15d54a5cc6b9f09de8457e873eb3deb1fceb54b0b295da6050294fae7fd999",
      "24fc90e1da13f17ef9fe84cc96b9471ed1aaac17e3a4bae33a115df4e5834f18",
      "85b957d92766235e7c880ac5447cfbe97f3cb499f486d1e43bcb5c2ff9608a1a",
      "d7c562370af617b581c84a2468cc8bd50bb1cbf322de41b7887ce07c0e5884ca",
      "b46d9f2d8c4bf83546ff178f1d78937c008d64e8ecc5cbb825cb21d94d670d89"
    ),
    (
      "b20d705d9bd7c2b8dc60393a5357f632990e599a0975573ac67fd89b49187906",
      "51f99d2d52d4a6e734484a018b7ca2f895c2929b6754a3a03224d07ae61166ce",
      "4737da963c6ef7247fb88d19f9b0c667cac7fe12837fdab88c66f10d3c14cad1",
      "72b656f6b35b9ccbc712c9f1f3b1a14cbbebaec41c4bca8da18f492a062d6f6f",
      "17b03f9f00f6692ccdde485fc63c4530751ef35da6f71336610944b0894fcfb8",
      "9886ae46c1415c3bc959e82b760ad760aab66885a84e620aa339fdf102465c42",
      "2bf3a80bc04faa35ebecc0f4864ac02d349f6f126e0f988501b8d3075409a26c"
    ),
  ]

  @Test func nistSigGenVectorsGiveTheirPublicKeyAndSignatureAndVerify() throws {
    for (d, qx, qy, k, digest, r, s) in Self.cavp {
      let key = try #require(P256.PrivateKey(rawRepresentation: Self.bytes(d)))
      #expect(Self.hex(key.publicKey.x963Representation) == "04" + qx + qy)
      let nonce = try #require(U256(bigEndian: Self.bytes(k)))
      let signature = try #require(key.signature(digest: Self.bytes(digest), nonce: nonce))
      #expect(Self.hex(signature.rawRepresentation) == r + s)
      #expect(key.publicKey.isValidSignature(signature, digest: Self.bytes(digest)))
      var wrong = Self.bytes(digest)
      wrong[31] ^= 1
      #expect(!key.publicKey.isValidSignature(signature, digest: wrong))
    }
  }

  /// RFC 6979 A.2.5, P-256 with SHA-256, messages "sample" and "test".
  @Test func rfc6979NoncesGiveTheAppendixSignatures() throws {
    let key = try #require(
      P256.PrivateKey(rawRepresentation: Self.bytes("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"))
    )
    #expect(
      Self.hex(key.publicKey.x963Representation)
        == "04" + "60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"
        + "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299")
    let sample = key.signature(for: Array("sample".utf8))
    #expect(
      Self.hex(sample.rawRepresentation)
        == "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716"
        + "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8")
    let test = key.signature(for: Array("test".utf8))
    #expect(
      Self.hex(test.rawRepresentation)
        == "f1abb023518351cd71d881567b1ea663ed3efcf6c5132b354f28d3b0b7d38367"
        + "019f4113742a2b14bd25926b49c649155f267e60d3814b4c0cc84250e46f0083")
    #expect(key.publicKey.isValidSignature(sample, for: Array("sample".utf8)))
    #expect(!key.publicKey.isValidSignature(sample, for: Array("test".utf8)))
  }

  @Test func signaturesConvertBetweenDERAndJOSERawForms() throws {
    let key = P256.PrivateKey(deriving: [1, 2, 3], label: "test")
    for message in ["a", "b", "c", "d"] {
      let signature = key.signature(for: Array(message.utf8))
      #expect(P256.Signature(derRepresentation: signature.derRepresentation) == signature)
      #expect(P256.Signature(rawRepresentation: signature.rawRepresentation) == signature)
      #expect(signature.rawRepresentation.count == 64)
    }
    #expect(P256.Signature(rawRepresentation: [UInt8](repeating: 1, count: 63)) == nil)
    #expect(P256.Signature(derRepresentation: [0x30, 0x03, 0x02, 0x01, 0x01]) == nil)
  }

  @Test func privateKeysRoundTripThroughPKCS8SEC1AndPEM() throws {
    let key = P256.PrivateKey(deriving: [9], label: "round trip")
    #expect(try P256.PrivateKey(derRepresentation: key.pkcs8DERRepresentation) == key)
    #expect(try P256.PrivateKey(pemOrBase64: key.pemRepresentation) == key)
    #expect(try P256.PrivateKey(pemOrBase64: Data(key.pkcs8DERRepresentation).base64EncodedString()) == key)
    #expect(key.pkcs8DERRepresentation.count == 138)
    var spki = DER.Reader(key.publicKey.spkiDERRepresentation)
    #expect(try P256.PublicKey(spki: &spki) == key.publicKey)
    #expect(throws: DER.Failure.self) { try P256.PrivateKey(derRepresentation: [0x30, 0x81, 0x01, 0x00]) }
    #expect(throws: DER.Failure.self) { try P256.PrivateKey(pemOrBase64: "not a key") }
  }

  @Test func derReaderRefusesNonMinimalAndTruncatedLengths() {
    var long = DER.Reader([0x04, 0x81, 0x01, 0x00])
    #expect(throws: DER.Failure.self) { try long.read(.octetString) }
    var truncated = DER.Reader([0x04, 0x05, 0x00])
    #expect(throws: DER.Failure.self) { try truncated.read(.octetString) }
    var integer = DER.Reader([0x02, 0x02, 0x00, 0x01])
    #expect(throws: DER.Failure.self) { try integer.readUnsignedInteger() }
  }

  @Test func objectIdentifiersRoundTrip() throws {
    var oid = DER.Reader(DER.oid("1.2.840.113635.100.6.11.1"))
    #expect(try oid.readOID() == "1.2.840.113635.100.6.11.1")
  }

  @Test func pointsOffTheCurveAreRefused() {
    let key = P256.PrivateKey(deriving: [7], label: "curve")
    var point = key.publicKey.x963Representation
    point[64] ^= 1
    #expect(P256.PublicKey(x963Representation: point) == nil)
    #expect(P256.PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 32)) == nil)
    #expect(P256.PrivateKey(rawRepresentation: [UInt8](repeating: 0xFF, count: 32)) == nil)
  }
}
