// As Apple's StoreKit does, StoreSimKit brings Foundation with it: code that says
// `import StoreKit` uses `Date`, `UUID`, `NSError` and `NSObject` with no other import.
@_exported import Foundation
