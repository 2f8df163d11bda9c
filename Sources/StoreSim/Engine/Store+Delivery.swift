import Foundation

extension Store {
  /// Records a delivery attempt made by the front end.
  package mutating func recordDelivery(_ attempt: NotificationDelivery) {
    if state.deliveryLog == nil { state.deliveryLog = [] }
    state.deliveryLog!.append(attempt)
  }

  /// Sets or clears the URL notifications are delivered to as they happen.
  package mutating func setDeliveryURL(_ url: String?) {
    state.deliveryURL = url
  }

  /// Notification indexes never delivered successfully to `url`, split into never attempted
  /// and failed before.
  package func undelivered(to url: String) -> (new: [Int], failed: [Int]) {
    let log = (state.deliveryLog ?? []).filter { $0.url == url }
    let done = Set(log.filter(\.succeeded).map(\.index))
    let tried = Set(log.map(\.index))
    let open = state.notifications.indices.filter { !done.contains($0) }
    return (open.filter { !tried.contains($0) }, open.filter { tried.contains($0) })
  }
}
