import Foundation

/// One file handed to `Store.importAppleData`: its name, for messages, and its bytes.
package struct ImportFile: Sendable {
  /// The name problems are reported under (the path as the user wrote it).
  package let name: String
  /// The file's bytes.
  package let bytes: [UInt8]

  /// A file of these bytes.
  package init(name: String, bytes: [UInt8]) {
    self.name = name
    self.bytes = bytes
  }
}

/// One thing wrong with the data to import: the file, the item in it and what was wrong.
package struct ImportProblem: Sendable, Hashable, CustomStringConvertible {
  /// The file.
  package let file: String
  /// The item (`signedTransactions[2]`, `line 7`), empty for the whole file.
  package let item: String
  /// What was wrong.
  package let message: String

  /// `FILE: ITEM: MESSAGE`, one line.
  package var description: String {
    let text = [file, item, message].filter { !$0.isEmpty }.joined(separator: ": ")
    var safe = ""
    for scalar in text.unicodeScalars {
      if DisplaySafety.mustEscape(scalar) {
        safe += "\\u{\(String(scalar.value, radix: 16))}"
      } else {
        safe.unicodeScalars.append(scalar)
      }
    }
    return safe
  }
}

/// The import refused: every problem found, nothing imported.
package struct ImportFailure: Error, Sendable {
  /// The problems, in the order of the files.
  package let problems: [ImportProblem]
}

/// What was read from Apple's data, before it is linked into customers.
struct ImportedItems {
  /// A transaction as a payload had it.
  struct Item {
    var fields: Transaction.Fields
    var signedDate: Date?
    var appTransactionID: String?
    /// The history response it came from (all of one response are one customer's).
    var response: String?
    var place: (file: String, item: String)

    /// What ties it to one App Store account: its original transaction, its app transaction
    /// id and its app account token (the first is always there).
    var accountKeys: [String] {
      var keys = ["o\(fields.purchase.originalID)"]
      if let app = appTransactionID { keys.append("p" + app) }
      if let token = fields.purchase.appAccountToken { keys.append("a\(token)") }
      return keys
    }
  }
  /// A renewal info as a payload had it, with the status beside it, if any.
  struct Renewal {
    var info: RenewalInfo
    var status: Int?
    var response: String?
    /// Where it stood.
    var place: (file: String, item: String) = ("", "")
  }
  /// A notification as its payload had it.
  struct Notification {
    var type: NotificationTypeV2
    var subtype: Subtype?
    var signedDate: Date
    var transaction: Item?
    var renewal: Renewal?
    var status: Int?
    var uuid: String?
    /// The JWS as it came (kept as the notification's `original`; dropped by `--redact`).
    var signedPayload: String?
    /// The App Store's attempts to send it, as Get Notification History listed them.
    var attempts: [(date: Date, result: String)] = []
    /// The `appTransactionId` of its `appData` (RESCIND_CONSENT): whose notification it is.
    var appTransactionID: String?
    /// Where it stood.
    var place: (file: String, item: String) = ("", "")
  }

  var transactions: [Item] = []
  var renewals: [Renewal] = []
  var notifications: [Notification] = []
  /// The Get Transaction History answers, by response: what each listed, in its order.
  var histories: [String: HistoryAnswer] = [:]
  /// The responses of `histories` in the order they came.
  var historyOrder: [String] = []
  /// When the app was first downloaded, as App Transaction Info and verifyReceipt's `receipt`
  /// said (`originalPurchaseDate`, `original_purchase_date_ms`).
  var appPurchaseDates: [(date: Date, place: (file: String, item: String))] = []
  var problems: [ImportProblem] = []
}

extension ImportedItems {
  /// Transactions numbered 0 (an Xcode receipt's) get ids after `first` and after every id in
  /// the data (all at most `ImportBounds.largestID`), each its own original; a transaction whose
  /// original is 0 takes, as its original, the new id of its product's first such purchase.
  mutating func numberUnnumbered(after first: TransactionID) {
    guard transactions.contains(where: { $0.fields.purchase.id == 0 || $0.fields.purchase.originalID == 0 }) else {
      return
    }
    let ids = transactions.map(\.fields.purchase.id) + notifications.compactMap { $0.transaction?.fields.purchase.id }
    var next = max(first, (ids.max() ?? 0) + 1)
    var originals: [ProductID: TransactionID] = [:]
    for i in transactions.indices where transactions[i].fields.purchase.id == 0 {
      transactions[i].fields.purchase.id = next
      if transactions[i].fields.purchase.originalID == 0 {
        transactions[i].fields.purchase.originalID = next
        if originals[transactions[i].fields.purchase.productID] == nil {
          originals[transactions[i].fields.purchase.productID] = next
        }
      }
      next += 1
    }
    for i in transactions.indices where transactions[i].fields.purchase.originalID == 0 {
      let product = transactions[i].fields.purchase.productID
      if originals[product] == nil {
        originals[product] = next
        next += 1
      }
      transactions[i].fields.purchase.originalID = originals[product]!
    }
  }

  /// One record per notification: copies with the same `notificationUUID` (a webhook log and
  /// Get Notification History both hold it) are one, with every send attempt either listed.
  mutating func mergeNotificationCopies() {
    var seen: [String: Int] = [:]
    var kept: [Notification] = []
    for n in notifications {
      guard let uuid = n.uuid else {
        kept.append(n)
        continue
      }
      if let i = seen[uuid] {
        for a in n.attempts where !kept[i].attempts.contains(where: { $0.date == a.date && $0.result == a.result }) {
          kept[i].attempts.append(a)
        }
        kept[i].attempts.sort { $0.date < $1.date }
      } else {
        seen[uuid] = kept.count
        kept.append(n)
      }
    }
    notifications = kept
  }
}

/// One Get Transaction History answer (v1 or v2: they look the same), its pages in order.
struct HistoryAnswer {
  /// The transactions it listed, in its order.
  var ids: [TransactionID] = []
  /// The earliest `signedDate` of its transactions: when it was fetched.
  var signed: Date?
  /// Whether its last page said there was no more (`hasMore` false).
  var isComplete = false
}
