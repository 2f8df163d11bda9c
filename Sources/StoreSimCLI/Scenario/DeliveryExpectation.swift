import Foundation
import StoreSim
import StoreSimServer

/// What `expect delivery FIELD VALUE` checks of the newest notification's delivery.
enum DeliveryField: String, CaseIterable {
  case attempts, result, delivered, fault, duplicates

  var help: String {
    switch self {
    case .attempts: return "attempts N (the App Store's attempts: the first and Production's retries)"
    case .result: return "result SEND_ATTEMPT_RESULT (of the last App Store attempt, e.g. SUCCESS, SOCKET_ISSUE)"
    case .delivered: return "delivered yes|no"
    case .fault: return "fault TEXT|none (a label storesim's delivery faults put on an attempt contains TEXT)"
    case .duplicates: return "duplicates N (copies storesim's faults sent twice)"
    }
  }

  /// nil when `value` is what the newest notification's attempts show, else what they show.
  func mismatch(_ value: String, store: Store) -> String? {
    guard let index = store.notifications.indices.last else { return "no notification" }
    let all = (store.state.deliveryLog ?? []).filter { $0.index == index }
    let own = all.filter(\.isAppStoreAttempt)
    let got: String
    switch self {
    case .attempts: got = String(own.count)
    case .result: got = own.last.map(ServerAPI.sendAttemptResult) ?? "none"
    case .delivered: got = all.contains(where: \.succeeded) ? "yes" : "no"
    case .duplicates: got = String(all.filter { $0.origin == .duplicate }.count)
    case .fault:
      let labels = all.compactMap(\.fault)
      if value == "none" { return labels.isEmpty ? nil : labels.joined(separator: "; ") }
      return labels.contains { $0.contains(value) } ? nil : (labels.isEmpty ? "none" : labels.joined(separator: "; "))
    }
    return got.lowercased() == value.lowercased() ? nil : got
  }
}
