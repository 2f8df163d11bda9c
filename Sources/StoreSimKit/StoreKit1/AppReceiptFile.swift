import Foundation
import StoreSim
import StoreSimSync

/// The app receipt of a session, as a file the app reads (`SKTestSession.appStoreReceiptURL`,
/// where the app reads `Bundle.main.appStoreReceiptURL`).
///
/// Apple's receipt is a PKCS#7 container; storesim's is the compact JSON of the `receipt`
/// object of a `verifyReceipt` response (`Store.receipt(customer:)`), so the base64 an app
/// sends as `receipt-data` (`Data(contentsOf: url).base64EncodedString()`) is the same text as
/// `latest_receipt` in `storesim receipt --json`, and what `storesim serve`'s `/verifyReceipt`
/// reads. The file is written when the app first asks for its URL, again after every change
/// to the store while it exists (purchases, renewals, refunds: its `receipt_creation_date` is
/// the session's time), and by `SKReceiptRefreshRequest`. It lives in a directory of its own
/// under the temporary directory, removed with the session.
final class AppReceiptFile: Sendable {
  let directory: URL
  let url: URL
  private let state = Mutex((present: true, written: false))

  init() {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("storesim-\(UUID().uuidString)")
    url = directory.appendingPathComponent("StoreKit").appendingPathComponent("receipt")
  }

  deinit { try? FileManager.default.removeItem(at: directory) }

  /// The receipt's bytes for the app's customer.
  static func contents(_ store: Store, customer: CustomerID) -> Data {
    Data((store.receipt(customer: customer)["receipt"] ?? .object([:])).rendered(pretty: false).utf8)
  }

  /// The URL the app reads, the file written first if the receipt is present and not yet written.
  func url(_ core: SessionCore) -> URL {
    core.read { store in
      state.withLock { s in
        if s.present && !s.written { s.written = write(store, core.customer) }
      }
    }
    return url
  }

  /// The store changed (called holding the session's lock): a written receipt is rewritten.
  func storeChanged(_ store: Store, customer: CustomerID) {
    state.withLock { s in
      if s.present && s.written { s.written = write(store, customer) }
    }
  }

  /// `SKReceiptRefreshRequest`: the receipt is present and written now.
  func refresh(_ core: SessionCore) {
    core.read { store in
      state.withLock { s in
        s.present = true
        s.written = write(store, core.customer)
      }
    }
  }

  /// Whether the device has a receipt; false removes the file until a refresh.
  func setPresent(_ present: Bool, _ core: SessionCore) {
    if present {
      refresh(core)
    } else {
      state.withLock { s in
        s = (false, false)
        try? FileManager.default.removeItem(at: url)
      }
    }
  }

  var isPresent: Bool { state.withLock { $0.present } }

  private func write(_ store: Store, _ customer: CustomerID) -> Bool {
    do {
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Self.contents(store, customer: customer).write(to: url, options: .atomic)
      return true
    } catch {
      return false
    }
  }
}
