import StoreSim

extension NotificationDelivery {
  /// "HTTP 200", "HTTP 307: redirect (...) not followed", "connection refused".
  package var outcome: String {
    httpStatus.map { "HTTP \($0)" + (error.map { ": \($0)" } ?? "") } ?? error ?? "failed"
  }

  /// What is not the App Store's in an attempt, for people: ` (your resend; not an App Store
  /// attempt)`, ` [fault: duplicate]`; empty for an App Store attempt without a fault.
  package var label: String {
    var text = ""
    switch origin {
    case .resend?: text += " (your resend; not an App Store attempt)"
    case .duplicate?: text += " (storesim's duplicate; not an App Store attempt)"
    case nil: break
    }
    if let fault, origin != .duplicate { text += " [fault: \(fault)]" }
    return text
  }
}
