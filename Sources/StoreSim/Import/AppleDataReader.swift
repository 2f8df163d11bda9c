import Foundation
import StoreSimCrypto

/// Reads Apple's JSON (responses of the App Store Server API, webhook logs, verifyReceipt
/// answers): recognises each file by its content and decodes its JWS without requiring their
/// signatures to verify (unless `verify` is given). Pure: bytes in, items or problems out.
struct AppleDataReader {
  let bundleID: String
  let verify: (@Sendable (String) -> Bool)?
  var items = ImportedItems()

  /// One line of a file read a line at a time (a webhook log, or pages saved a line each).
  mutating func readLine(_ line: ArraySlice<UInt8>, number: Int, file: String) {
    do {
      let node = try JSONParser.parse(line)
      readLine(node, number: number, file: file)
    } catch {
      problem(file, "line \(number)", "is not JSON (\(error.message))")
    }
  }

  /// The history answer a page that said `hasMore` was part of, and the keys of its account
  /// (original transaction ids, app transaction ids, app account tokens): the next line goes on
  /// with it when it shares one.
  var continuing: (file: String, response: String, keys: Set<String>)? = nil

  /// One line already parsed. A history page after one that said `hasMore` is the same answer
  /// when the two share an account's key (pages of different answers may interleave in a log).
  mutating func readLine(_ node: JSONNode, number: Int, file: String) {
    let own = "\(file)#\(number)"
    let before = items.transactions.count
    let previous = continuing
    continuing = nil
    recognise(node, file: file, item: "line \(number)", response: own)
    guard node["signedTransactions"] != nil, node["bundleId"] != nil else { return }
    var keys = Set(items.transactions[before...].flatMap(\.accountKeys))
    var response = own
    if let p = previous, p.file == file, !keys.isDisjoint(with: p.keys) {
      response = p.response
      keys.formUnion(p.keys)
      for i in before..<items.transactions.count { items.transactions[i].response = response }
      if let page = items.histories.removeValue(forKey: own), var answer = items.histories[response] {
        items.historyOrder.removeAll { $0 == own }
        answer.ids += page.ids
        answer.signed = [answer.signed, page.signed].compactMap { $0 }.min()
        answer.isComplete = page.isComplete
        items.histories[response] = answer
      }
    }
    if case .bool(true)? = node["hasMore"]?.value { continuing = (file, response, keys) }
  }

  /// A file of one line, read as a document.
  mutating func readDocument(_ node: JSONNode, file: String) {
    recognise(node, file: file, item: "", response: file)
  }

  /// A whole file that is one document (a response, or pages as a JSON array); when it is not
  /// JSON, its lines are read one by one, each problem named by its line.
  mutating func readDocument(_ bytes: [UInt8], file: String) {
    if let document = try? JSONParser.parse(bytes) {
      return recognise(document, file: file, item: "", response: file)
    }
    if Self.isBase64(bytes) {
      return appReceipt(String(decoding: bytes, as: UTF8.self), file: file, item: "", response: file)
    }
    var lineNumber = 0
    var start = 0
    while start < bytes.count {
      let end = bytes[start...].firstIndex(of: 10) ?? bytes.count
      lineNumber += 1
      let line = bytes[start..<end]
      start = end + 1
      if ImportStream.isBlank(line) { continue }
      readLine(line, number: lineNumber, file: file)
    }
  }

  mutating func problem(_ file: String, _ item: String, _ message: String) {
    items.problems.append(ImportProblem(file: file, item: item, message: message))
  }

  private func join(_ a: String, _ b: String) -> String { a.isEmpty ? b : "\(a): \(b)" }

  /// One document: which response it is, by the names it holds.
  private mutating func recognise(_ node: JSONNode, file: String, item: String, response: String) {
    if case .array(let pages) = node.value {
      for (i, page) in pages.enumerated() {
        recognise(page, file: file, item: join(item, "[\(i)]"), response: response)
      }
      return
    }
    guard node.members != nil else { return problem(file, item, "is \(node.value.kindDescription), not a response") }
    if let bundle = node["bundleId"], case .string(let b) = bundle.value, b != bundleID {
      return problem(file, item, "is for bundle \(b), not this session's \(bundleID)")
    }
    if let list = node["signedTransactions"] {
      // Get Transaction History (v1, v2) or Get Refund History (no bundleId): one customer's.
      let isHistory = node["bundleId"] != nil
      if isHistory && items.histories[response] == nil { items.historyOrder.append(response) }
      for (i, jws) in strings(list).enumerated() {
        let before = items.transactions.count
        transaction(jws, file: file, item: join(item, "signedTransactions[\(i)]"), response: response)
        if isHistory, items.transactions.count > before, let t = items.transactions.last {
          items.histories[response, default: HistoryAnswer()].ids.append(t.fields.purchase.id)
          let signed = [items.histories[response]?.signed, t.signedDate].compactMap { $0 }.min()
          items.histories[response]?.signed = signed
        }
      }
      if isHistory {
        var complete = false
        if case .bool(false)? = node["hasMore"]?.value { complete = true }
        items.histories[response, default: HistoryAnswer()].isComplete = complete
      }
    } else if case .string(let a) = node["signedAppTransactionInfo"]?.value {
      // Get App Transaction Info: when the app was first downloaded.
      let place = join(item, "signedAppTransactionInfo")
      guard let payload = decode(a, file: file, item: place) else { return }
      if case .string(let b) = payload["bundleId"]?.value, b != bundleID {
        return problem(file, place, "is for bundle \(b), not this session's \(bundleID)")
      }
      guard let date = Self.int(payload["originalPurchaseDate"]) else {
        return problem(file, place, "has no originalPurchaseDate")
      }
      items.appPurchaseDates.append((Date(epochMilliseconds: date), (file, place)))
    } else if let data = node["data"], case .array(let groups) = data.value {
      // Get All Subscription Statuses: one customer's.
      for (g, group) in groups.enumerated() {
        let last = group["lastTransactions"].map { $0.value } ?? .array([])
        guard case .array(let entries) = last else { continue }
        for (i, entry) in entries.enumerated() {
          let place = join(item, "data[\(g)].lastTransactions[\(i)]")
          var status: Int?
          if case .number(let n) = entry["status"]?.value { status = Int(n) }
          if case .string(let t) = entry["signedTransactionInfo"]?.value {
            transaction(t, file: file, item: place, response: response)
          }
          if case .string(let r) = entry["signedRenewalInfo"]?.value {
            renewal(r, status: status, file: file, item: place, response: response)
          }
        }
      }
    } else if case .string(let t) = node["signedTransactionInfo"]?.value {
      transaction(t, file: file, item: join(item, "signedTransactionInfo"), response: response)
    } else if let history = node["notificationHistory"] {
      guard case .array(let entries) = history.value else {
        return problem(file, item, "notificationHistory is not a list")
      }
      for (i, entry) in entries.enumerated() {
        if case .string(let p) = entry["signedPayload"]?.value {
          let place = join(item, "notificationHistory[\(i)]")
          let count = items.notifications.count
          notification(p, file: file, item: place)
          if items.notifications.count > count { items.notifications[count].attempts = attempts(entry, file, place) }
        }
      }
    } else if case .string(let p) = node["signedPayload"]?.value {
      notification(p, file: file, item: join(item, "signedPayload"))
    } else if case .string(let data) = node["receipt-data"]?.value {
      // What an app sends to verifyReceipt (and a server logs): the app receipt.
      appReceipt(data, file: file, item: join(item, "receipt-data"), response: response)
    } else if node["latest_receipt_info"] != nil || node["receipt"] != nil {
      ReceiptReader(bundleID: bundleID).read(node, file: file, item: item, response: response, into: &items)
    } else if let code = Self.int(node["errorCode"]) {
      var message = ""
      if case .string(let m) = node["errorMessage"]?.value { message = ": " + m }
      problem(file, item, "is an error response (errorCode \(code)\(message))")
    } else {
      problem(file, item, "is not a response storesim can import (no signedTransactions, data, signedPayload, ...)")
    }
  }

  /// A notification history entry's `sendAttempts` (or, without them, its deprecated
  /// `firstSendAttemptResult`, dated when the notification was signed).
  private mutating func attempts(_ entry: JSONNode, _ file: String, _ place: String) -> [(date: Date, result: String)] {
    var out: [(date: Date, result: String)] = []
    if case .array(let list)? = entry["sendAttempts"]?.value {
      for (k, a) in list.enumerated() {
        guard let date = Self.int(a["attemptDate"]), case .string(let result)? = a["sendAttemptResult"]?.value else {
          problem(file, join(place, "sendAttempts[\(k)]"), "has no attemptDate or sendAttemptResult")
          continue
        }
        out.append((Date(epochMilliseconds: date), result))
      }
    } else if let other = entry["sendAttempts"] {
      problem(file, join(place, "sendAttempts"), "is \(other.value.kindDescription), not a list")
    } else if case .string(let result)? = entry["firstSendAttemptResult"]?.value, let n = items.notifications.last {
      out.append((n.signedDate, result))
    }
    return out
  }

  private func strings(_ node: JSONNode) -> [String] {
    guard case .array(let list) = node.value else { return [] }
    return list.compactMap { if case .string(let s) = $0.value { s } else { nil } }
  }

  /// A JWS's payload as JSON, or a problem.
  private mutating func decode(_ jws: String, file: String, item: String) -> JSONNode? {
    if let verify, !verify(jws) {
      problem(file, item, "signature does not verify against --verify-root")
      return nil
    }
    guard let bytes = JWS.payload(of: jws), let node = try? JSONParser.parse(bytes), node.members != nil else {
      problem(file, item, "is not a JWS whose payload is a JSON object")
      return nil
    }
    return node
  }

  private mutating func transaction(_ jws: String, file: String, item: String, response: String?) {
    guard let node = decode(jws, file: file, item: item),
      let t = transactionItem(node, file: file, item: item, response: response)
    else { return }
    items.transactions.append(t)
  }

  mutating func transactionItem(_ node: JSONNode, file: String, item: String, response: String?) -> ImportedItems.Item?
  {
    if case .string(let b) = node["bundleId"]?.value, b != bundleID {
      problem(file, item, "is for bundle \(b), not this session's \(bundleID)")
      return nil
    }
    var reader = RecordWireReader(node)
    var fields = Transaction.Fields.blank
    do {
      try fields.visitRow(&reader)
    } catch {
      problem(file, item, error.message)
      return nil
    }
    guard fields.purchase.id != 0, !fields.purchase.productID.isEmpty else {
      problem(file, item, "has no transactionId or productId")
      return nil
    }
    if fields.purchase.originalID == 0 { fields.purchase.originalID = fields.purchase.id }
    var t = Transaction(fields: fields)
    switch reader.object["revocationType"] {
    case .string("FAMILY_REVOKE"): t.fields.status.isFamilyRevocation = true
    case .string("REFUND_PRORATED"):
      if case .number(let n) = reader.object["revocationPercentage"], let p = UInt64(n) { t.setProratedPercentage(p) }
    default: break
    }
    if let c = node["commitmentInfo"], let n = Self.int(c["billingPeriodNumber"]),
      let end = Self.int(c["commitmentExpiresDate"]), let price = Self.int(c["commitmentPrice"])
    {
      t.setCommitment(
        TransactionCommitment(
          billingPeriodNumber: Int(n), totalBillingPeriods: SubscriptionCommitment.totalBillingPeriods,
          expirationDate: Date(epochMilliseconds: end), price: Decimal(price) / 1000))
    }
    var appTransactionID: String?
    if case .string(let a) = node["appTransactionId"]?.value { appTransactionID = a }
    return ImportedItems.Item(
      fields: t.fields, signedDate: Self.int(node["signedDate"]).map { Date(epochMilliseconds: $0) },
      appTransactionID: appTransactionID, response: response, place: (file, item))
  }

  static func int(_ node: JSONNode?) -> Int64? {
    switch node?.value {
    case .number(let n), .string(let n): Int64(n)
    default: nil
    }
  }

  private mutating func renewal(_ jws: String, status: Int?, file: String, item: String, response: String?) {
    guard let node = decode(jws, file: file, item: item) else { return }
    if let r = renewalItem(node, status: status, file: file, item: item, response: response) {
      items.renewals.append(r)
    }
  }

  private mutating func renewalItem(
    _ node: JSONNode, status: Int?, file: String, item: String, response: String?
  ) -> ImportedItems.Renewal? {
    var reader = RecordWireReader(node)
    var info = RenewalInfo.blank
    do {
      try info.visitRow(&reader)
    } catch {
      problem(file, item, "signedRenewalInfo: " + error.message)
      return nil
    }
    let consent: Int64? = Self.int(node["priceIncreaseStatus"])
    if consent == 0 { info.priceIncreaseStatus = .pending }
    if consent == 1 { info.priceIncreaseStatus = .agreed }
    return ImportedItems.Renewal(info: info, status: status, response: response, place: (file, item))
  }

  private mutating func notification(_ jws: String, file: String, item: String) {
    guard let node = decode(jws, file: file, item: item) else { return }
    guard case .string(let typeName) = node["notificationType"]?.value,
      let type = NotificationTypeV2(rawValue: typeName)
    else { return problem(file, item, "notificationType is missing or unknown") }
    var subtype: Subtype?
    if case .string(let s) = node["subtype"]?.value {
      guard let known = Subtype(rawValue: s) else { return problem(file, item, "subtype \(s) is unknown") }
      subtype = known
    }
    guard let signed = Self.int(node["signedDate"]) else { return problem(file, item, "has no signedDate") }
    var n = ImportedItems.Notification(
      type: type, subtype: subtype, signedDate: Date(epochMilliseconds: signed), transaction: nil, renewal: nil,
      status: Self.int(node["data"]?["status"]).map { Int($0) }, uuid: nil, signedPayload: jws, place: (file, item))
    if case .string(let u) = node["notificationUUID"]?.value { n.uuid = u }
    if case .string(let a)? = node["appData"]?["signedAppTransactionInfo"]?.value {
      let place = join(item, "appData.signedAppTransactionInfo")
      guard let payload = decode(a, file: file, item: place) else { return }
      if case .string(let id)? = payload["appTransactionId"]?.value { n.appTransactionID = id }
    }
    if let data = node["data"] {
      if case .string(let b) = data["bundleId"]?.value, b != bundleID {
        return problem(file, item, "is for bundle \(b), not this session's \(bundleID)")
      }
      if case .string(let t) = data["signedTransactionInfo"]?.value {
        let place = join(item, "signedTransactionInfo")
        guard let tn = decode(t, file: file, item: place),
          let ti = transactionItem(tn, file: file, item: place, response: nil)
        else { return }
        n.transaction = ti
      }
      if case .string(let r) = data["signedRenewalInfo"]?.value {
        let place = join(item, "signedRenewalInfo")
        guard let rn = decode(r, file: file, item: place),
          let ri = renewalItem(rn, status: n.status, file: file, item: place, response: nil)
        else { return }
        n.renewal = ri
      }
    }
    items.notifications.append(n)
  }
}
