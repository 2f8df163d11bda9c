import Foundation

extension Store {
  /// A parent or guardian withdraws consent for the customer's use of the app (Settings ›
  /// Developer › Sandbox Apple Account › Revoke App Consent): `RESCIND_CONSENT`, no subtype,
  /// whose payload carries `appData` with the customer's signed app transaction instead of
  /// `data` (rule rescind-consent-carries-app-data). Nothing else changes: StoreKit tells the
  /// app nothing, and purchases stay as they are.
  @discardableResult
  public mutating func revokeConsent(customer: CustomerID = .default) throws(StoreError) -> Outcome<Void> {
    try atomically { (store: inout Store) throws(StoreError) -> Void in
      let ci = try store.index(of: customer)
      store.notify(ci, .rescindConsent, nil, transaction: nil, renewalInfo: nil, status: nil)
    }
  }
}
