import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimCLI

/// App receipts in Apple's form (issue 49, item 1): a PKCS#7 container, BER as Xcode writes it
/// (indefinite lengths, the receipt in an octet string in pieces), read without its signature.
@Suite struct ImportAppReceiptTests {
  typealias T = ImportCommandTests

  /// A BER element of `tag` holding `content`, with a definite length.
  static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
    let n = content.count
    let length: [UInt8] =
      n < 0x80 ? [UInt8(n)] : n < 0x100 ? [0x81, UInt8(n)] : [0x82, UInt8(n >> 8), UInt8(n & 0xFF)]
    return [tag] + length + content
  }

  /// A constructed element of indefinite length (ended by 00 00).
  static func open(_ tag: UInt8, _ children: [UInt8]) -> [UInt8] { [tag, 0x80] + children + [0, 0] }

  static func integer(_ n: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    var v = n
    repeat {
      bytes.insert(UInt8(v & 0xFF), at: 0)
      v >>= 8
    } while v > 0
    if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
    return tlv(0x02, bytes)
  }

  static func utf8(_ s: String) -> [UInt8] { tlv(0x0C, Array(s.utf8)) }
  static func ia5(_ s: String) -> [UInt8] { tlv(0x16, Array(s.utf8)) }

  /// The receipt's set of `{type, version, value}` attributes.
  static func attributes(_ list: [(Int, [UInt8])]) -> [UInt8] {
    tlv(0x31, list.flatMap { tlv(0x30, integer($0.0) + integer(1) + tlv(0x04, $0.1)) })
  }

  /// A container as Xcode's: signed data, the receipt's octet string in two pieces.
  static func container(_ receipt: [UInt8]) -> [UInt8] {
    let signedData: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
    let data: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
    let half = receipt.count / 2
    let pieces = open(0x24, tlv(0x04, Array(receipt[..<half])) + tlv(0x04, Array(receipt[half...])))
    let content = open(0x30, data + open(0xA0, pieces))
    let digests = tlv(0x31, tlv(0x30, [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00]))
    return open(0x30, signedData + open(0xA0, open(0x30, integer(1) + digests + content)))
  }

  /// A monthly subscription bought on 2026-01-01, renewed once, in a receipt of an app first
  /// downloaded on 2025-12-20; and a purchase Xcode numbered 0.
  static func receipt(bundle: String = "com.example.app") -> [UInt8] {
    func purchase(_ id: String, _ bought: String, _ expires: String) -> [UInt8] {
      attributes([
        (1701, integer(1)), (1702, utf8(T.premium)), (1703, utf8(id)), (1705, utf8("2000000000000007")),
        (1704, ia5(bought)), (1706, ia5("2026-01-01T00:00:00Z")), (1708, ia5(expires)),
        (1711, integer(2_000_000_100_000_007)),
      ])
    }
    return container(
      attributes([
        (0, utf8("ProductionSandbox")), (2, utf8(bundle)), (3, utf8("1")), (18, ia5("2025-12-20T10:00:00Z")),
        (17, purchase("2000000000000007", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z")),
        (17, purchase("2000000000000008", "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z")),
        (
          17,
          attributes([
            (1701, integer(1)), (1702, utf8("com.example.premium.lifetime")), (1703, utf8("0")),
            (1704, ia5("2026-01-05T00:00:00Z")),
          ])
        ),
      ]))
  }

  @Test func importReadsAnAppReceiptInApplesPKCS7Form() throws {
    let cli = try CLIHarness()
    try T.write(cli, "receipt.b64", Data(Self.receipt()).base64EncodedString(options: .lineLength64Characters) + "\n")
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    let r = cli.run("import receipt.b64 --session b.json")
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.hasPrefix("imported 3 transactions, 1 subscription"), "\(r.stdout)")
    let info = try T.decoded(T.api(cli, "/inApps/v1/transactions/2000000000000008", session: "b.json"))
    for field in [
      "transactionId=\"2000000000000008\"", "originalTransactionId=\"2000000000000007\"",
      "purchaseDate=1769904000000", "expiresDate=1772323200000", "webOrderLineItemId=\"2000000100000007\"",
    ] {
      #expect(info.joined().contains(field), "\(field): \(info)")
    }
    // Xcode's 0 is numbered after the receipt's ids; the app's first download is the start.
    #expect(cli.run("transactions --session b.json").stdout.contains("2000000000000009  com.example.premium.lifetime"))
    let app = try T.decoded(T.api(cli, "/inApps/v1/transactions/appTransactions/2000000000000007", session: "b.json"))
    #expect(app.joined().contains("originalPurchaseDate=1766224800000"), "\(app)")
  }

  @Test func importRefusesABrokenOrForeignAppReceiptInOneLine() throws {
    let cli = try CLIHarness()
    #expect(cli.run("init Premium.storekit --environment Sandbox --session b.json").code == 0)
    let whole = Self.receipt()
    try T.write(cli, "cut.b64", Data(whole.prefix(whole.count / 2)).base64EncodedString())
    try T.write(cli, "other.b64", Data(Self.receipt(bundle: "com.example.other")).base64EncodedString())
    let before = T.bytes(cli, "b.json")
    let r = cli.run("import cut.b64 other.b64 --session b.json")
    #expect(r.code == 65)
    #expect(
      r.stderr.split(separator: "\n").map(String.init) == [
        "error: cut.b64: is an app receipt in Apple's PKCS#7 form that has a length past its end",
        "error: other.b64: is for bundle com.example.other, not this session's com.example.app",
        "error: import refused: 2 problems, nothing imported",
      ], "\(r.stderr)")
    #expect(T.bytes(cli, "b.json") == before)
  }

  @Test func importMakesAFamilySharedProductFamilyShareable() {
    var p = Transaction.Fields.blank.purchase
    p.productType = .autoRenewable
    p.ownershipType = .familyShared
    #expect(ImportedProduct.minimal("x", like: p, expires: nil).isFamilyShareable)
    p.ownershipType = .purchased
    #expect(!ImportedProduct.minimal("x", like: p, expires: nil).isFamilyShareable)
  }
}
