import Foundation

/// How `Store.importAppleData` reads and places the data.
package struct ImportOptions: Sendable {
  /// The clock after the import; nil: the newest time in the data (or the session's, if later).
  package var now: Date?
  /// Make minimal products for the ones the data names and the configuration lacks.
  package var addProducts: Bool
  /// Whether a JWS's signature verifies (`--verify-root`); nil: signatures are not checked.
  package var verify: (@Sendable (String) -> Bool)?
  /// Replace ids and app account tokens with pseudonyms (`--redact`, `ImportRedaction`).
  package var redact: Bool

  /// Options.
  package init(
    now: Date? = nil, addProducts: Bool = false, verify: (@Sendable (String) -> Bool)? = nil, redact: Bool = false
  ) {
    self.now = now
    self.addProducts = addProducts
    self.verify = verify
    self.redact = redact
  }
}

/// Apple's data read a file at a time, each file in pieces of any size (`ImportStream`): what
/// `storesim import` feeds from its files, then hands to `Store.importAppleData`.
package struct AppleDataImport {
  var reader: AppleDataReader
  private var stream: ImportStream?

  /// Reading for a store of this bundle id; `verify` checks each JWS (nil: none is checked).
  package init(bundleID: String, verify: (@Sendable (String) -> Bool)? = nil) {
    reader = AppleDataReader(bundleID: bundleID, verify: verify)
  }

  /// A file begins (the last one, if any, ends).
  package mutating func begin(_ name: String) {
    end()
    stream = ImportStream(name: name)
  }

  /// The next bytes of the file begun.
  package mutating func feed(_ bytes: ArraySlice<UInt8>) {
    stream?.feed(bytes, into: &reader)
  }

  /// The file begun ends.
  package mutating func end() {
    stream?.end(into: &reader)
    stream = nil
  }
}

/// What an import added.
package struct ImportSummary: Sendable, Equatable {
  /// The customers made, in order.
  package var customers: [CustomerID]
  /// Transactions, subscriptions and notifications added.
  package var transactions: Int
  package var subscriptions: Int
  package var notifications: Int
  /// Products added by `addProducts`.
  package var addedProducts: [ProductID]
  /// The clock after the import.
  package var now: Date
}

extension Store {
  /// Imports what Apple's servers handed a team (docs/import.md): every file
  /// is read and checked before anything changes; any problem refuses the whole import and the
  /// store is unchanged (all or nothing).
  ///
  /// Customers: the transactions of one history or statuses response are one customer's, and
  /// transactions sharing an `originalTransactionId` or an `appAccountToken` are the same
  /// customer's. A lone customer goes to an empty `default`;
  /// otherwise each is named `customer-<its smallest originalTransactionId>`.
  package mutating func importAppleData(
    _ files: [ImportFile], options: ImportOptions = ImportOptions()
  ) throws(ImportFailure) -> ImportSummary {
    var data = AppleDataImport(bundleID: state.bundleID, verify: options.verify)
    for file in files {
      data.begin(file.name)
      data.feed(file.bytes[...])
    }
    return try importAppleData(data, options: options)
  }

  /// Imports the data read (`AppleDataImport`), as `importAppleData(_:options:)` does its files.
  package mutating func importAppleData(
    _ data: AppleDataImport, options: ImportOptions = ImportOptions()
  ) throws(ImportFailure) -> ImportSummary {
    var data = data
    data.end()
    var items = data.reader.items
    items.mergeNotificationCopies()
    // Ids and dates a session can hold, before any arithmetic on them.
    let outOfRange = ImportBounds.problems(items)
    guard outOfRange.isEmpty else { throw ImportFailure(problems: items.problems + outOfRange) }
    items.numberUnnumbered(after: state.nextTransactionID)
    if options.redact {
      ImportRedaction(
        items: items, firstTransactionID: state.nextTransactionID,
        firstWebOrderLineItemID: state.nextWebOrderLineItemID
      ).apply(to: &items)
    }
    for n in items.notifications {
      if let t = n.transaction { items.transactions.append(t) }
      if let r = n.renewal { items.renewals.append(r) }
    }
    var problems = items.problems
    // Products: known, or made when asked.
    var configuration = state.configuration
    var added: [ProductID] = []
    var reported: Set<String> = []
    for t in items.transactions where configuration.product(t.fields.purchase.productID) == nil {
      let id = t.fields.purchase.productID
      if options.addProducts {
        configuration = configuration.adding(
          ImportedProduct.minimal(id, like: t.fields.purchase, expires: t.fields.status.expirationDate))
        added.append(id)
      } else if reported.insert(id).inserted {
        problems.append(
          ImportProblem(
            file: t.place.file, item: t.place.item,
            message: "names product \(id), which the configuration lacks (--add-products makes it)"))
      }
    }
    let existing = Set(state.customers.flatMap { $0.transactions.map(\.id) })
    for t in items.transactions where existing.contains(t.fields.purchase.id) {
      problems.append(
        ImportProblem(
          file: t.place.file, item: t.place.item,
          message: "transaction \(t.fields.purchase.id) is already in the session"))
    }
    guard problems.isEmpty else { throw ImportFailure(problems: problems) }
    var next = state
    next.configuration = configuration
    let summary = ImportLinker(items: items, configuration: configuration).apply(to: &next, options: options)
    self = Store(state: next)
    return ImportSummary(
      customers: summary.customers, transactions: summary.transactions, subscriptions: summary.subscriptions,
      notifications: summary.notifications, addedProducts: added, now: next.now)
  }
}
