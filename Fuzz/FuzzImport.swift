// libFuzzer target: `storesim import`'s readers (Apple's JSON answers, webhook logs, app
// receipts in storesim's form and in Apple's PKCS#7 form), then the import into a store.
// Built by Scripts/fuzz.sh into the one fuzz binary (FuzzMain.swift picks the target).
import Foundation

/// Apple's sample configuration (the fuzz binary runs from the project's root), or none.
private let importConfiguration: StoreConfiguration? = {
  guard let data = FileManager.default.contents(atPath: "Configurations/AppleSample.storekit") else { return nil }
  return try? ConfigurationReader.read(Array(data)).configuration
}()

public func fuzzImport(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  _ = try? AppReceiptContainer.receipt(bytes)
  guard let configuration = importConfiguration else { return 0 }
  var store = Store(configuration: configuration, start: Date(timeIntervalSince1970: 1_767_225_600))
  // The bytes as a file, and as an app receipt's base64 (what an app sends).
  let files = [
    ImportFile(name: "data", bytes: bytes),
    ImportFile(name: "receipt", bytes: Array(Data(bytes).base64EncodedString().utf8)),
  ]
  _ = try? store.importAppleData(files, options: ImportOptions(addProducts: true))
  return 0
}
