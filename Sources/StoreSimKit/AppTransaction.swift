import Foundation
import StoreSim
import StoreSimCrypto

/// The app's download, as StoreKit's `AppTransaction`.
///
/// As `storesim serve`'s Get App Transaction Info: the app was bought when the session's store
/// began (`originalPurchaseDate` is the session's start date), on iOS, in the session's
/// environment, with the customer's `appTransactionID`. The versions are "1" unless the test
/// sets `SKTestSession.appVersion` / `originalAppVersion`; in the sandbox `originalAppVersion`
/// is always "1.0" (rule sandbox-original-application-version-is-1-0).
public struct AppTransaction: Sendable, Hashable, JWSRepresentable {
  /// Nil outside production, as in Xcode and the sandbox.
  public let appID: UInt64?
  public let appVersion: String
  /// Nil outside production.
  public let appVersionID: UInt64?
  public let bundleID: String
  public let environment: AppStore.Environment
  public let originalAppVersion: String
  public let originalPurchaseDate: Date
  public let originalPlatform: AppStore.Platform
  public let preorderDate: Date?
  public let signedDate: Date
  public let appTransactionID: String
  /// The nonce of `deviceVerification`.
  public let deviceVerificationNonce: UUID
  /// SHA-384 of the lowercased nonce followed by the lowercased `AppStore.deviceVerificationID`.
  public let deviceVerification: Data
  public let jwsRepresentation: String

  /// `versions` is read before taking the lock that `store` is read under.
  init(core: SessionCore, store: Store, versions: (app: String, original: String)) {
    appID = nil
    appVersion = versions.app
    appVersionID = nil
    bundleID = store.state.bundleID
    environment = AppStore.Environment(store.state.environment)
    originalAppVersion =
      store.state.environment == .sandbox
      ? AppTransactionPayload.originalApplicationVersion(.sandbox) : versions.original
    originalPurchaseDate = store.state.startDate
    originalPlatform = .iOS
    preorderDate = nil
    signedDate = store.now
    appTransactionID = store.customer(core.customer)?.appTransactionID ?? ""
    deviceVerificationNonce = DeviceVerification.nonce("app transaction", core: core)
    deviceVerification = DeviceVerification.value(nonce: deviceVerificationNonce, core: core)
    let payload = JSONOutput.object([
      "receiptType": .string(store.state.environment.rawValue),
      "bundleId": .string(bundleID),
      "appAppleId": store.state.productionAppAppleID,
      "appTransactionId": .string(appTransactionID),
      "applicationVersion": .string(appVersion),
      "originalApplicationVersion": .string(originalAppVersion),
      "originalPurchaseDate": .int(originalPurchaseDate.epochMilliseconds),
      "receiptCreationDate": .int(signedDate.epochMilliseconds),
      "requestDate": .int(signedDate.epochMilliseconds),
      "originalPlatform": .string(originalPlatform.rawValue),
      "deviceVerification": .string(deviceVerification.base64EncodedString()),
      "deviceVerificationNonce": .string(deviceVerificationNonce.uuidString.lowercased()),
    ])
    jwsRepresentation = JWS.sign(payload, signer: store.state.signer)
  }

  public static func == (a: AppTransaction, b: AppTransaction) -> Bool {
    a.jwsRepresentation == b.jwsRepresentation
  }

  public func hash(into hasher: inout Hasher) { hasher.combine(jwsRepresentation) }

  /// The payload as JSON.
  public var jsonRepresentation: Data { VerificationResult.verified(self).payloadData }

  /// The app transaction; throws a simulated `.appTransaction` error, and is `.unverified`
  /// under a simulated `.verification` error.
  public static var shared: VerificationResult<AppTransaction> {
    get async throws { try current("AppTransaction.shared") }
  }

  /// Asks the App Store for the app transaction again (the customer would sign in); as `shared`.
  public static func refresh() async throws -> VerificationResult<AppTransaction> {
    try current("AppTransaction.refresh()")
  }

  private static func current(_ api: String) throws -> VerificationResult<AppTransaction> {
    let core = try SessionResolver.require(api)
    if let error = core.simulatedGenericError(.appTransaction) { throw error }
    let versions = core.appVersions
    return core.read { store in
      let value = AppTransaction(core: core, store: store, versions: versions)
      if let error = store.settings.simulatedError(forAPI: .verification) {
        return .unverified(value, VerificationResult<AppTransaction>.VerificationError(simulated: error.name))
      }
      guard JWS.verify(value.jwsRepresentation, signer: store.state.signer) != nil else {
        return .unverified(value, .invalidSignature)
      }
      return .verified(value)
    }
  }
}

extension VerificationResult where SignedType == Transaction {
  /// The signed transaction's `deviceVerification`.
  public var deviceVerification: Data { unsafePayloadValue.deviceVerification }
  /// The signed transaction's `deviceVerificationNonce`.
  public var deviceVerificationNonce: UUID { unsafePayloadValue.deviceVerificationNonce }
}

extension VerificationResult where SignedType == AppTransaction {
  /// The signed app transaction's `deviceVerification`.
  public var deviceVerification: Data { unsafePayloadValue.deviceVerification }
  /// The signed app transaction's `deviceVerificationNonce`.
  public var deviceVerificationNonce: UUID { unsafePayloadValue.deviceVerificationNonce }
}
