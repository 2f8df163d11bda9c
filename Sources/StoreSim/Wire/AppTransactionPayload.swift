import Foundation

/// The app's download as a `JWSAppTransactionDecodedPayload`, as the server sees it (Get App
/// Transaction Info, a `RESCIND_CONSENT` notification's `appData`): no device verification
/// (the server copy has none). storesim models the download by the customer's
/// `appTransactionId`, the bundle id, the environment and the session's start (the original
/// purchase date); the platform is iOS and the app version "1". In the sandbox the original
/// application version is always "1.0" (rule sandbox-original-application-version-is-1-0).
public struct AppTransactionPayload {
  /// The JSON object.
  public let json: JSONOutput

  /// `originalApplicationVersion` in an environment: "1.0" in the sandbox, else "1".
  public static func originalApplicationVersion(_ environment: StoreEnvironment) -> String {
    environment == .sandbox ? "1.0" : "1"
  }

  /// Builds the payload of a customer's app transaction, created at `signedDate`; `appAppleID`
  /// is carried in Production only, as Apple's is (`init --app-apple-id`).
  public init(
    appTransactionID: String, bundleID: String, environment: StoreEnvironment, startDate: Date, signedDate: Date,
    appAppleID: Int64? = nil
  ) {
    var fields: [String: JSONOutput] = [
      "receiptType": .string(environment.rawValue),
      "bundleId": .string(bundleID),
      "appTransactionId": .string(appTransactionID),
      "applicationVersion": .string("1"),
      "originalApplicationVersion": .string(Self.originalApplicationVersion(environment)),
      "originalPurchaseDate": milliseconds(startDate),
      "receiptCreationDate": milliseconds(signedDate),
      "originalPlatform": .string("iOS"),
    ]
    if environment == .production, let appAppleID { fields["appAppleId"] = .int(appAppleID) }
    json = .object(fields)
  }
}

extension Store {
  /// A customer's app transaction as the server's payload, signed at `signedDate` (now by
  /// default); nil for an unknown customer.
  public func appTransactionPayload(customer: CustomerID, signedDate: Date? = nil) -> JSONOutput? {
    guard let c = self.customer(customer) else { return nil }
    return AppTransactionPayload(
      appTransactionID: c.appTransactionID, bundleID: state.bundleID, environment: state.environment,
      startDate: state.startDate, signedDate: signedDate ?? state.now, appAppleID: state.appAppleID
    ).json
  }
}
