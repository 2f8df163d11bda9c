import Foundation
import StoreSim
import StoreSimSync

/// The states of hosted content, as StoreKit's `SKDownloadState`.
public enum SKDownloadState: Int, Sendable, Hashable {
  case waiting = 0
  case active = 1
  case paused = 2
  case finished = 3
  case failed = 4
  case cancelled = 5
}

/// `SKDownload.timeRemaining` while the time is not known.
public let SKDownloadTimeRemainingUnknown: TimeInterval = -1

/// Hosted content of a purchase, as StoreKit's `SKDownload`.
///
/// Hosted content is not simulated: `.storekit` configurations have none, so no
/// `SKPaymentTransaction` has downloads and none is ever made for the app. The type and the
/// queue's `start`, `pause`, `resume` and `cancel` exist so that code written for StoreKit 1
/// compiles and runs; given a download they move it as StoreKit does and tell observers
/// (`paymentQueue(_:updatedDownloads:)`).
///
/// Open, as in StoreKit; unchecked only because of that: what changes lives in a Mutex.
open class SKDownload: NSObject, @unchecked Sendable {
  private let content: (transaction: SKPaymentTransaction, identifier: String, version: String, length: Int64)
  private let fields = Mutex((state: SKDownloadState.waiting, progress: Float(0)))

  open var transaction: SKPaymentTransaction { content.transaction }
  open var contentIdentifier: String { content.identifier }
  open var contentVersion: String { content.version }
  open var expectedContentLength: Int64 { content.length }

  /// An empty download (of a blank transaction), as `NSObject`'s `init()` makes one in
  /// StoreKit: for a subclass that overrides the properties it needs.
  public override init() {
    content = (SKPaymentTransaction(), "", "", 0)
    super.init()
  }

  init(transaction: SKPaymentTransaction, contentIdentifier: String, contentVersion: String, length: Int64) {
    content = (transaction, contentIdentifier, contentVersion, length)
    super.init()
  }

  open var state: SKDownloadState { downloadState }
  open var downloadState: SKDownloadState { fields.withLock { $0.state } }
  open var contentLength: Int64 { expectedContentLength }
  /// Where the finished content is: never, as nothing is downloaded.
  open var contentURL: URL? { nil }
  open var error: (any Error)? { nil }
  open var progress: Float { fields.withLock { $0.progress } }
  open var timeRemaining: TimeInterval { SKDownloadTimeRemainingUnknown }

  /// Moves to `state` unless the download has ended; whether it moved.
  func move(to state: SKDownloadState) -> Bool {
    fields.withLock { f in
      guard ![SKDownloadState.finished, .failed, .cancelled, state].contains(f.state) else { return false }
      f.state = state
      return true
    }
  }
}

extension SKPaymentQueue {
  /// Moves downloads (`start`, `pause`, `resume`, `cancel`) and tells observers.
  func moveDownloads(_ downloads: [SKDownload], to state: SKDownloadState) {
    let queue = target
    let moved = downloads.filter { $0.move(to: state) }
    guard !moved.isEmpty else { return }
    queue.state.withLock { $0.outbox.append(.downloads(moved)) }
    queue.scheduleDelivery()
  }
}
