import Foundation
import Testing

@testable import StoreSim
@testable import StoreSimHTTP
@testable import StoreSimServer
@testable import StoreSimTestSupport

/// Attack rows 6 and 7 of the hostile pass: `receipt-data` as Foundation wraps it, and a receipt
/// of another session of the same app.
@Suite struct ReceiptAttackTests {
  static func status(_ store: Store, _ receiptData: String) throws -> Int {
    let body = JSONOutput.object(["receipt-data": .string(receiptData)]).rendered(pretty: false)
    let request = HTTPRequest(method: "POST", target: "/sandbox/verifyReceipt", body: Array(body.utf8))
    let response = VerifyReceipt.answer(request, store: store, endpoint: .sandbox, sharedSecret: nil)
    let node = try JSONParser.parse(Array(response.body.utf8))
    guard case .number(let text)? = node["status"]?.value, let code = Int(text) else { return -1 }
    return code
  }

  @Test(arguments: [
    Data.Base64EncodingOptions.lineLength64Characters, .lineLength76Characters,
  ])
  func base64WrappedWithCRLFAsFoundationWritesItIsAccepted(_ length: Data.Base64EncodingOptions) throws {
    var store = try VerifyReceiptTests.store()
    store.tieReceipts(toDownload: 42)
    let bytes = try #require(Data(base64Encoded: store.appReceiptData()))
    #expect(bytes.count > 76)  // long enough to be wrapped
    for ending: Data.Base64EncodingOptions in [[], .endLineWithCarriageReturn, .endLineWithLineFeed] {
      let wrapped = bytes.base64EncodedString(options: [length, ending])
      #expect(wrapped.contains("\n") || wrapped.contains("\r"))
      #expect(try Self.status(store, wrapped) == 0, "options \(ending.rawValue)")
    }
    #expect(try Self.status(store, bytes.base64EncodedString().replacingOccurrences(of: "A", with: "A\r\n")) == 0)
  }

  @Test func aReceiptFromAnotherSessionOfTheSameAppCannotBeAuthenticated() throws {
    var mine = try VerifyReceiptTests.store()
    var theirs = try VerifyReceiptTests.store()  // same app, same purchases, same transaction ids
    mine.tieReceipts(toDownload: 1_111)
    theirs.tieReceipts(toDownload: 2_222)
    #expect(try Self.status(mine, mine.appReceiptData()) == 0)
    #expect(try Self.status(mine, theirs.appReceiptData()) == 21003)
    #expect(try Self.status(theirs, mine.appReceiptData()) == 21003)
    // A receipt that names no session is not this one's either; one of an untied session stays valid there.
    let untied = try VerifyReceiptTests.store()
    #expect(try Self.status(mine, untied.appReceiptData()) == 21003)
    #expect(try Self.status(untied, untied.appReceiptData()) == 0)
  }

  @Test func theReceiptCarriesItsSessionsDownloadID() throws {
    var store = try VerifyReceiptTests.store()
    store.tieReceipts(toDownload: 7_654_321)
    let receipt = try #require(AppReceipt(data: store.appReceiptData()))
    #expect(receipt.downloadID == 7_654_321)
  }
}
