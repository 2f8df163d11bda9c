// libFuzzer target: the .storekit reader, then a short run of a store on what it read.
// Built by Scripts/fuzz.sh into the one fuzz binary (FuzzMain.swift picks the target).
import Foundation

public func fuzzConfiguration(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  guard let loaded = try? ConfigurationReader.read(bytes) else { return 0 }
  var store = Store(configuration: loaded.configuration, start: Date(timeIntervalSince1970: 1_767_225_600))
  store.settings.timeRate = .realTime
  for product in loaded.configuration.products.prefix(4) { _ = try? store.purchase(product.id) }
  _ = try? store.advance(by: 86_400 * 40)
  return 0
}
