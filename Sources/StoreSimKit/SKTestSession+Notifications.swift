import Foundation
import StoreSim
import StoreSimCrypto

extension SKTestSession {
  // MARK: Notifications

  /// The App Store Server Notifications V2 the session sent, oldest first.
  public var notifications: [Notification] {
    core.read { store in
      store.notifications.map { n in
        Notification(
          notificationType: n.notificationType.rawValue, subtype: n.subtype?.rawValue, name: n.name,
          signedDate: n.signedDate,
          signedPayload: JWS.sign(store.payload(n), signer: store.state.signer),
          payload: store.payload(n).rendered(pretty: false))
      }
    }
  }

  /// One server notification.
  public struct Notification: Hashable, Sendable {
    /// `notificationType`, e.g. `DID_RENEW`.
    public let notificationType: String
    /// `subtype`, e.g. `GRACE_PERIOD`.
    public let subtype: String?
    /// `TYPE` or `TYPE/SUBTYPE` (`ServerNotification.name`).
    public let name: String
    public let signedDate: Date
    /// The compact JWS Apple would POST as `signedPayload`.
    public let signedPayload: String
    /// The `ResponseBodyV2DecodedPayload` JSON text.
    public let payload: String
  }
}
