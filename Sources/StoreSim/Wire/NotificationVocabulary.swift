/// The `notificationType` of an App Store Server Notification V2, with Apple's raw values (the
/// name of Apple's `NotificationTypeV2`). JSON rendering is the only place the raw strings
/// appear.
public enum NotificationTypeV2: String, Sendable, Hashable, Codable, CaseIterable {
  case subscribed = "SUBSCRIBED"
  case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
  case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
  case offerRedeemed = "OFFER_REDEEMED"
  case didRenew = "DID_RENEW"
  case expired = "EXPIRED"
  case didFailToRenew = "DID_FAIL_TO_RENEW"
  case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
  case priceIncrease = "PRICE_INCREASE"
  case refund = "REFUND"
  case refundDeclined = "REFUND_DECLINED"
  case consumptionRequest = "CONSUMPTION_REQUEST"
  case renewalExtended = "RENEWAL_EXTENDED"
  case revoke = "REVOKE"
  case test = "TEST"
  case renewalExtension = "RENEWAL_EXTENSION"
  case refundReversed = "REFUND_REVERSED"
  case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
  case oneTimeCharge = "ONE_TIME_CHARGE"
  /// A parent or guardian withdrew consent for a child's use of the app: the payload carries
  /// `appData` instead of `data` (rule rescind-consent-carries-app-data).
  case rescindConsent = "RESCIND_CONSENT"
}

/// The `subtype` of an App Store Server Notification V2, with Apple's raw values (the name of
/// Apple's `Subtype`).
public enum Subtype: String, Sendable, Hashable, Codable, CaseIterable {
  case initialBuy = "INITIAL_BUY"
  case resubscribe = "RESUBSCRIBE"
  case downgrade = "DOWNGRADE"
  case upgrade = "UPGRADE"
  case autoRenewEnabled = "AUTO_RENEW_ENABLED"
  case autoRenewDisabled = "AUTO_RENEW_DISABLED"
  case voluntary = "VOLUNTARY"
  case billingRetry = "BILLING_RETRY"
  case priceIncrease = "PRICE_INCREASE"
  case gracePeriod = "GRACE_PERIOD"
  case pending = "PENDING"
  case accepted = "ACCEPTED"
  case billingRecovery = "BILLING_RECOVERY"
  case productNotForSale = "PRODUCT_NOT_FOR_SALE"
  case summary = "SUMMARY"
  case failure = "FAILURE"
  case unreported = "UNREPORTED"
  /// `EXTERNAL_PURCHASE_TOKEN`: Apple created a custom link token (known name; storesim sends
  /// no external purchase notifications).
  case created = "CREATED"
  /// `EXTERNAL_PURCHASE_TOKEN`: the monthly reminder while a custom link token is active
  /// (known name; storesim sends no external purchase notifications).
  case activeTokenReminder = "ACTIVE_TOKEN_REMINDER"
}

extension ServerNotification {
  /// `TYPE` or `TYPE/SUBTYPE` in Apple's words (`DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED`),
  /// as people, scenarios and tests write a notification.
  public static func name(_ type: NotificationTypeV2, _ subtype: Subtype?) -> String {
    type.rawValue + (subtype.map { "/" + $0.rawValue } ?? "")
  }

  /// `TYPE` or `TYPE/SUBTYPE` of this notification, e.g. `SUBSCRIBED/INITIAL_BUY`.
  public var name: String { Self.name(notificationType, subtype) }
}
